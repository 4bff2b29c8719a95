import type { IncomingMessage } from 'node:http';
import type { PetStoreRequest, RequestBody } from '@petstore/core';

/** What the adapter reads from an Express request; `body` is set when a parser ran upstream. */
export interface MountedRequest extends IncomingMessage {
  readonly baseUrl: string;
  readonly originalUrl: string;
  readonly body?: unknown;
}

/** The body as the core should see it, whether or not a parser ran upstream. */
export function bodyOf(req: MountedRequest): RequestBody {
  const parsed = req.body;
  // Nobody read a byte (no parser ran, or the body is empty, which body-parser
  // calls `{}`): the core reads the stream itself and stops at its own limit.
  if (parsed === undefined || !req.readableDidRead) return req;
  if (typeof parsed === 'string' || parsed instanceof Uint8Array) return parsed;
  const length = Number(req.headers['content-length']);
  return { kind: 'parsed', value: parsed, byteLength: Number.isNaN(length) ? undefined : length };
}

export function toCoreRequest(
  req: MountedRequest,
  body: RequestBody,
  basePath: string,
): PetStoreRequest {
  // Express cut the mount path off `req.url`; an absolute-form target keeps its origin there.
  const url = (req.url ?? '/').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?]*/i, '');
  const queryAt = req.originalUrl.indexOf('?');
  return {
    method: req.method ?? 'GET',
    path: url.split('?', 1)[0] || '/',
    query: queryAt === -1 ? '' : req.originalUrl.slice(queryAt + 1),
    headers: req.headers,
    body,
    basePath,
  };
}
