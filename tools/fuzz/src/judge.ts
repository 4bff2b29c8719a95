import type { RawAnswer } from '@petstore/conformance';
import type { FuzzRequest } from './requests.js';

/** The headers of the contract that a difference in would matter to a client. */
const CONTRACT_HEADERS = [
  'link',
  'allow',
  'retry-after',
  'www-authenticate',
  'deprecation',
  'sunset',
  'location',
] as const;

/** Statuses of the HTTP layer's refusals before any route. */
const PROTOCOL_STATUSES: ReadonlySet<number> = new Set([400, 408, 413, 417, 431, 505]);

/** Codes of the HTTP layer's refusals before any route (installClientErrorHandler, the fetch adapter). */
const PROTOCOL_CODES: ReadonlySet<string> = new Set([
  'invalid_request',
  'request_timeout',
  'payload_too_large',
  'expectation_failed',
  'headers_too_large',
  'http_version_not_supported',
]);

const jsonOf = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
};

/**
 * What is compared between hosts: status, error code, content type, the
 * contract's headers, and a success's body; never request ids or dates.
 * Without ids (`withIds` false): no success body, and numbers in the headers
 * (ids in `Location`, cursors in `Link`) left out, for a host whose store
 * holds other pets than the reference's.
 */
export function signature(request: FuzzRequest, answer: RawAnswer, withIds = true): string {
  if (answer.status === undefined) return 'no answer';
  const parts = [String(answer.status), answer.headers['content-type'] ?? '-'];
  const body = jsonOf(answer.body) as { code?: unknown } | undefined;
  if (answer.status >= 400) parts.push(`code=${String(body?.code ?? '(not the Error body)')}`);
  else if (request.method !== 'HEAD' && withIds) parts.push(`body=${answer.body}`);
  for (const name of CONTRACT_HEADERS) {
    const value = answer.headers[name];
    if (value !== undefined) parts.push(`${name}=${withIds ? value : value.replace(/\d+/g, 'N')}`);
  }
  return parts.join(' | ');
}

/** What is wrong with an answer under the mount path: it must be the Error body or a contract success. */
export function judgeUnderBase(request: FuzzRequest, answer: RawAnswer): string | undefined {
  if (answer.status === undefined) return 'no answer';
  if (answer.headers['x-request-id'] === undefined) return 'no X-Request-Id';
  if (request.method === 'HEAD') return undefined;
  if (answer.headers['content-type'] !== 'application/json; charset=utf-8') {
    return `content type ${answer.headers['content-type'] ?? '(none)'}`;
  }
  const body = jsonOf(answer.body);
  if (body === undefined) return `a body that is not JSON: ${answer.body.slice(0, 80)}`;
  if (answer.status === 200 || answer.status === 201) return undefined;
  const error = body as { code?: unknown; message?: unknown; status?: unknown };
  const isErrorBody =
    typeof error.code === 'string' &&
    typeof error.message === 'string' &&
    error.status === answer.status;
  return isErrorBody ? undefined : `not the Error body: ${answer.body.slice(0, 120)}`;
}

/**
 * What is wrong with an answer outside the mount path: the host answers as it likes, but the
 * API never serves there (an answer of the core carries `X-Request-Id`; only the HTTP
 * layer's refusals of a malformed request may carry one there too).
 */
export function judgeOutsideBase(request: FuzzRequest, answer: RawAnswer): string | undefined {
  if (answer.headers['x-request-id'] === undefined || answer.status === undefined) return undefined;
  const code = (jsonOf(answer.body) as { code?: unknown } | undefined)?.code;
  // A HEAD answer has no body to read the code from: its status says it.
  const refusal =
    request.method === 'HEAD'
      ? PROTOCOL_STATUSES.has(answer.status)
      : typeof code === 'string' && PROTOCOL_CODES.has(code);
  return refusal ? undefined : `the API answered outside the mount path: ${answer.status}`;
}
