import { type Operation, shapeProblem } from './shapes.js';
import type { ErrorDetail } from './types.js';

/** The codes the service answers with, and the ones the client adds (see `PetStoreError`). */
export type PetStoreErrorCode =
  | 'unauthorized'
  | 'invalid_request'
  | 'malformed_json'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'idempotency_key_in_use'
  | 'idempotency_key_reused'
  | 'service_unavailable'
  | 'internal_error'
  /** No answer at all (connection refused or cut), after the retries. `status` is 0. */
  | 'network_error'
  /** No complete answer (headers and body) within `timeoutMs`, after the retries. `status` is 0. */
  | 'timeout'
  /**
   * `createPet` ended without knowing whether the pet was stored: an attempt may have reached
   * the service with no answer saying what became of it (a 503, 502 or 504, a timeout, a
   * connection lost once open, a proxy's error page), and the client stopped (`retryBudgetMs`
   * or `retries` spent, or an answer it does not retry). Retry later with the same body and
   * `error.idempotencyKey`: the service replays the stored pet, or creates it once. `status` is
   * the last attempt's (0 when no answer came), `cause` its failure.
   */
  | 'outcome_unknown'
  /**
   * An answer that is not the service's: an error status without its JSON Error body (a proxy's
   * HTML page, say), or a 2xx whose body is not JSON or not the operation's shape.
   */
  | 'unexpected_response'
  /** An answer whose body passed `maxBodyBytes`; the client stopped reading it. Not retried. */
  | 'response_too_large'
  /**
   * A redirect (a 3xx, or a browser's opaque redirect), or an answer a `fetch` option reached by
   * following one. Never followed, never retried: the key and the body go only to `baseUrl`.
   */
  | 'redirect_refused'
  /**
   * `pets()` / `orders()`: a next link outside `baseUrl` (another origin or path, also once its
   * path is percent-decoded). Never followed.
   */
  | 'untrusted_link'
  /** `pets()` / `orders()`: a walk that does not advance (a next link seen before, or an empty page with one). */
  | 'paging_loop'
  /** `pets()` / `orders()`: more pages than `maxPages`. */
  | 'too_many_pages'
  // Codes a newer service may add still type-check, while the known ones autocomplete.
  | (string & {});

export interface PetStoreErrorFields {
  readonly status: number;
  readonly code: PetStoreErrorCode;
  readonly message: string;
  readonly details?: readonly ErrorDetail[] | undefined;
  readonly requestId?: string | undefined;
  readonly idempotencyKey?: string | undefined;
  readonly cause?: unknown;
}

/** Every failure of a client call: the service's Error body, plus the answer's `X-Request-Id`. */
export class PetStoreError extends Error {
  override readonly name = 'PetStoreError';
  /** The HTTP status; 0 when no answer came (`network_error`, `timeout`). */
  readonly status: number;
  readonly code: PetStoreErrorCode;
  /** Which fields were wrong, for validation errors; empty otherwise. */
  readonly details: readonly ErrorDetail[];
  /** The answer's `X-Request-Id`, to find the request in the service's log. */
  readonly requestId: string | undefined;
  /**
   * `outcome_unknown`: the `Idempotency-Key` every attempt carried (yours, or the one the client
   * made up). Retry the same create with it to learn the outcome. Undefined on other codes.
   */
  readonly idempotencyKey: string | undefined;

  constructor({
    status,
    code,
    message,
    details,
    requestId,
    idempotencyKey,
    cause,
  }: PetStoreErrorFields) {
    super(message, cause === undefined ? undefined : { cause });
    this.status = status;
    this.code = code;
    this.details = details ?? [];
    this.requestId = requestId;
    this.idempotencyKey = idempotencyKey;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isDetail = (value: unknown): value is ErrorDetail =>
  isRecord(value) && typeof value.path === 'string' && typeof value.message === 'string';

/** The body as JSON, or `undefined` when it is not JSON (`null` is JSON's own). */
function parseJson(text: string): { readonly value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** The error for a non-2xx answer whose body has been read as text. */
export function errorFromAnswer(response: Response, text: string): PetStoreError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const body = parseJson(text)?.value;
  if (isRecord(body) && typeof body.code === 'string' && typeof body.message === 'string') {
    const details = Array.isArray(body.details) ? body.details.filter(isDetail) : undefined;
    return new PetStoreError({
      status: response.status,
      code: body.code,
      message: body.message,
      details,
      requestId,
    });
  }
  return unexpectedAnswer(response, '');
}

/** An answer that is not what the service sends (a proxy's page, a cut-off body). */
function unexpectedAnswer(response: Response, why: string): PetStoreError {
  return new PetStoreError({
    status: response.status,
    code: 'unexpected_response',
    message: `Unexpected answer: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${why}.`,
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}

/**
 * Whether an answer is a redirect, or came through one: a 3xx (`fetch` with `redirect: 'manual'`
 * in Node), an opaque redirect (the same in a browser: status 0, no headers), or an answer a
 * `fetch` option reached by following a redirect anyway.
 */
export const isRedirect = (response: Response): boolean =>
  response.type === 'opaqueredirect' ||
  (response.status >= 300 && response.status < 400) ||
  response.redirected;

/** A URL as origin and path: its query may carry anything, so messages leave it out. */
function originAndPath(url: string, base?: string): string | undefined {
  try {
    const parsed = new URL(url, base);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

/** Why the client did not use a redirect, for the message of `redirectRefused`. */
function refusedRedirect(response: Response, url: string): string {
  if (response.type === 'opaqueredirect') {
    return 'a redirect (the browser does not show where to); not followed';
  }
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    const target =
      location === null ? 'no Location' : (originAndPath(location, url) ?? 'an invalid Location');
    return `HTTP ${response.status} redirect to ${target}; not followed`;
  }
  const reached = originAndPath(response.url) ?? 'another URL';
  return `the fetch option followed a redirect to ${reached}; its answer is not used (a fetch option must keep redirect: 'manual')`;
}

/**
 * The `redirect_refused` error for an answer `isRedirect` found: the client never follows a
 * redirect, so neither the API key nor a create's body and `Idempotency-Key` go anywhere but
 * `baseUrl`, and no other server's answer is taken for the service's. Never retried.
 */
export function redirectRefused(
  operation: string,
  url: string,
  response: Response,
  base: string,
): PetStoreError {
  return new PetStoreError({
    status: response.status,
    code: 'redirect_refused',
    message: `${operation}: ${refusedRedirect(response, url)} (the API key and the request go only to ${base})`,
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}

/**
 * The parsed body of a 2xx answer, or an `unexpected_response` error when it is not JSON (a
 * captive portal's or a misrouted proxy's 200 page) or not the operation's shape: callers see
 * a PetStoreError either way, never a TypeError from a body they trusted.
 */
export function bodyOfSuccess(
  operation: Operation,
  response: Response,
  text: string,
): { readonly value: unknown } | PetStoreError {
  const parsed = parseJson(text);
  if (parsed === undefined) return unexpectedAnswer(response, ' with a body that is not JSON');
  const problem = shapeProblem(operation, parsed.value);
  return problem === undefined
    ? parsed
    : unexpectedAnswer(response, ` to ${operation}, not its shape (${problem})`);
}
