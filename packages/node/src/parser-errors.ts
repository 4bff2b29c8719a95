import type { RequestBody } from '@petstore/core';
import type { NodeRequest } from './request.js';

const MALFORMED: RequestBody = { kind: 'unreadable', reason: 'malformed' };

/**
 * Turns a body parser's refusal (`express.json()` passes it to `next`) back
 * into what the core would have read without that parser, so both answer
 * alike. `undefined`: not about the body, or the host's own verdict (a
 * failed `verify`); that stays with the host's error handlers.
 */
export function bodyFromParserError(error: unknown, req: NodeRequest): RequestBody | undefined {
  const { type, body, code } = (error ?? {}) as { type?: unknown; body?: unknown; code?: unknown };
  // body-parser passes zlib's inflate failures on without a `type`.
  if (type === undefined && typeof code === 'string' && code.startsWith('Z_')) return MALFORMED;
  switch (type) {
    case 'entity.parse.failed':
      // body-parser keeps the text it could not parse: the core judges it itself.
      return typeof body === 'string' ? body : MALFORMED;
    case 'entity.too.large':
      return { kind: 'unreadable', reason: 'too_large' };
    case 'charset.unsupported':
    case 'encoding.unsupported':
      // Refused on the headers alone, stream untouched: the core reads it.
      return req.readableDidRead ? MALFORMED : req;
    case 'request.aborted':
      // The client went away mid-body: the core ends the request without an answer.
      return { kind: 'unreadable', reason: 'aborted' };
    case 'request.size.invalid':
      return MALFORMED;
    default:
      return undefined;
  }
}
