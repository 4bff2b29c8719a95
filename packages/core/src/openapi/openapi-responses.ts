import { ERROR_STATUS, type ErrorCode } from '../http/errors.js';
import type { HeaderDoc } from '../operations/operation-spec.js';
import type { SchemaName } from '../schemas/schemas.js';
import { type Json, json, ref } from './openapi-schemas.js';

/** The document's responses: each error code's words and headers, grouped by status. */

const ERROR_TEXT: Record<ErrorCode, string> = {
  invalid_request:
    'Invalid parameters or body (`invalid_request`), or malformed JSON (`malformed_json`).',
  malformed_json: 'Malformed JSON.',
  unauthorized: 'API key missing or invalid (`unauthorized`).',
  not_found: 'No such resource (`not_found`).',
  method_not_allowed: 'Method not allowed (`method_not_allowed`).',
  idempotency_key_in_use:
    'A request with this Idempotency-Key is still in flight (`idempotency_key_in_use`).',
  payload_too_large: 'Body over the size limit (`payload_too_large`).',
  unsupported_media_type: 'Body is not application/json (`unsupported_media_type`).',
  idempotency_key_reused:
    'Idempotency-Key reused with a different body (`idempotency_key_reused`).',
  internal_error: 'Unexpected error (`internal_error`).',
  service_unavailable:
    'Storage unreachable (`service_unavailable`); retry after `Retry-After` seconds.',
  request_timeout: 'The request was not received in time (`request_timeout`).',
  expectation_failed: 'An `Expect` other than `100-continue` (`expectation_failed`).',
  headers_too_large: 'Request headers too large (`headers_too_large`).',
  http_version_not_supported: 'Not HTTP/1.1 (`http_version_not_supported`).',
};

const HEADER_DOCS = {
  'WWW-Authenticate': { description: 'RFC 6750 challenge.', schema: { type: 'string' } },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
  },
} satisfies Record<string, HeaderDoc>;

/** Headers an error carries, whichever operation answers it. */
const ERROR_HEADERS: Partial<Record<ErrorCode, readonly (keyof typeof HEADER_DOCS)[]>> = {
  unauthorized: ['WWW-Authenticate'],
  idempotency_key_in_use: ['Retry-After'],
  service_unavailable: ['Retry-After'],
};

const REQUEST_ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };

/** A response of the document; `body: 'none'` for one without content (a 204). */
export const response = (
  description: string,
  headers: Readonly<Record<string, unknown>>,
  body: SchemaName | undefined | 'none',
): Json => ({
  description,
  headers: { ...headers, ...REQUEST_ID_HEADER },
  ...(body === 'none' ? {} : { content: json(body === undefined ? undefined : ref(body)) }),
});

/** The 503 of an operation under load shedding: overloaded, and unreachable storage if it says so. */
const SHED_TEXT = {
  alone:
    'The server is overloaded (`service_unavailable`, load shedding); retry after `Retry-After` seconds.',
  withStorage:
    "Storage unreachable, or the server overloaded (`service_unavailable`; load shedding answers before authentication, without the operation's own headers); retry after `Retry-After` seconds.",
} as const;

/**
 * One response per status; codes sharing a status share its description and headers. `sheds`:
 * load shedding is on, so any request may be answered 503 before authentication.
 */
export function errorResponses(
  operationCodes: readonly ErrorCode[],
  operationHeaders: Json,
  sheds = false,
): Json {
  const fromStorage = operationCodes.includes('service_unavailable');
  const codes: readonly ErrorCode[] =
    sheds && !fromStorage ? [...operationCodes, 'service_unavailable'] : operationCodes;
  const text = (code: ErrorCode): string =>
    sheds && code === 'service_unavailable'
      ? SHED_TEXT[fromStorage ? 'withStorage' : 'alone']
      : ERROR_TEXT[code];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => {
      // Authentication comes before the operation, so a 401 carries none of its headers.
      const headers: Json = status === 401 ? {} : { ...operationHeaders };
      for (const name of group.flatMap((code) => ERROR_HEADERS[code] ?? [])) {
        headers[name] = HEADER_DOCS[name];
      }
      const description = group.map(text).join(' ');
      return [status, response(description, headers, 'Error')];
    }),
  );
}
