import { PetStoreError } from './errors.js';

/**
 * Error codes a `fetch` in Node gives (in its `cause`) only when no request went out: the
 * connection was refused, the name did not resolve, or connecting took too long. Any other
 * lost connection (a reset, a socket closed mid-answer, a browser's bare `TypeError`) may have
 * carried the request to the service, which may have acted on it.
 */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/** Whether a `fetch` error says, through its causes, that the request was never sent. */
export function neverSent(error: unknown, depth = 0): boolean {
  if (!isObject(error) || depth > 8) return false;
  if (typeof error.code === 'string' && NEVER_SENT.has(error.code)) return true;
  // Node tries each address of a name in turn (happy eyeballs): refused on all of them.
  const { errors } = error;
  if (Array.isArray(errors) && errors.length > 0) {
    if (errors.every((one) => neverSent(one, depth + 1))) return true;
  }
  return neverSent(error.cause, depth + 1);
}

/** The innermost cause's message, which names what happened (`connect ECONNREFUSED ...`). */
export function innermostMessage(error: unknown): string | undefined {
  let found: string | undefined;
  for (let at = error, depth = 0; isObject(at) && depth < 8; at = at.cause, depth++) {
    if (typeof at.message === 'string' && at.message !== '') found = at.message;
  }
  return found;
}

/**
 * Whether an attempt that failed this way may have reached the service without its answer
 * reaching the client, so that a create may or may not have been stored: a lost connection
 * that is not known to have happened before sending, a timeout, a 502, 503 or 504 (from the
 * service or a proxy in front of it), an error page that is not the service's (a proxy's 5xx),
 * or a 409 `idempotency_key_in_use` (a request with the key is still in flight).
 */
export function outcomeOpen(failure: PetStoreError, error?: unknown): boolean {
  if (failure.status === 0) {
    if (failure.code === 'timeout') return true;
    return failure.code === 'network_error' && !neverSent(error);
  }
  if ([502, 503, 504].includes(failure.status)) return true;
  if (failure.code === 'unexpected_response') return failure.status >= 500;
  return failure.code === 'idempotency_key_in_use';
}

/** The `outcome_unknown` error a keyed create ends with when none of its attempts is known to have failed for good. */
export function outcomeUnknown(
  operation: string,
  idempotencyKey: string,
  last: PetStoreError,
  attempts: number,
  elapsedMs: number,
  /** Why the client stopped, when it is not the budget or the answer (throttled retries). */
  why?: string,
): PetStoreError {
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  const stopped = why === undefined ? '' : ` (${why})`;
  return new PetStoreError({
    status: last.status,
    code: 'outcome_unknown',
    message:
      `${operation}: no known outcome after ${tries} in ${(elapsedMs / 1000).toFixed(1)} s${stopped}; ` +
      `the write may or may not have been stored (last: ${last.message}). Retry it later with ` +
      'the same body and the same Idempotency-Key (error.idempotencyKey): the service answers ' +
      'with what it stored if it was, and stores it once if not.',
    requestId: last.requestId,
    idempotencyKey,
    cause: last,
  });
}
