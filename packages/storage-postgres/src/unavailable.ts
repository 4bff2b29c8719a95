import { StorageUnavailableError } from '@petstore/core';

// Socket-level failures: the server is down, restarting, or unreachable.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// SQLSTATEs that say "not now" rather than "this request is wrong". Everything else
// (syntax 42xxx, constraint 23xxx, data 22xxx, ...) is a bug and must stay a 500.
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: fast shutdown or pg_terminate_backend
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '57014', // query_canceled: our statement_timeout fired
  '25006', // read_only_sql_transaction: a standby after failover
]);
const UNAVAILABLE_SQLSTATE_CLASSES = ['08', '53']; // connection exception, insufficient resources

// pg and pg-pool report these without a code.
const UNAVAILABLE_MESSAGES = [
  'Connection terminated', // also "... unexpectedly" and "... due to connection timeout"
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'is not queryable', // a client whose connection already failed
  'Cannot use a pool after calling end on the pool',
];

const codeOf = (error: object): string | undefined => {
  const code: unknown = Reflect.get(error, 'code');
  return typeof code === 'string' ? code : undefined;
};

// A connection that was alive when the pool handed it out and turned out dead: the server
// ended the session (restart, pg_terminate_backend, idle timeout) before the client noticed.
const STALE_CONNECTION_CODES = new Set(['57P01', '57P02', 'ECONNRESET', 'EPIPE']);
const STALE_CONNECTION_MESSAGES = ['Connection terminated unexpectedly', 'is not queryable'];

/**
 * True when `error` says the pooled connection was already dead, so the same read on a fresh
 * connection may well succeed. Refused or timed-out connections are not stale: the server is
 * down or slow, and asking again at once would only double the wait.
 */
export function isStaleConnection(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = codeOf(error);
  if (code !== undefined && STALE_CONNECTION_CODES.has(code)) return true;
  const message: unknown = Reflect.get(error, 'message');
  return typeof message === 'string' && STALE_CONNECTION_MESSAGES.some((m) => message.includes(m));
}

/** True when `error` means the database could not be reached or did not answer in time. */
export function isUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  if (error instanceof StorageUnavailableError) return true;
  const code = codeOf(error);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (code.length === 5 && UNAVAILABLE_SQLSTATE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  const message: unknown = Reflect.get(error, 'message');
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) {
    return true;
  }
  // Node reports a refused dual-stack connect as an AggregateError of per-address errors.
  if (error instanceof AggregateError && error.errors.some((e) => isUnavailable(e, depth + 1))) {
    return true;
  }
  return isUnavailable(Reflect.get(error, 'cause'), depth + 1);
}

/**
 * What a storage method rejects with: `StorageUnavailableError` (the core answers 503) when the
 * database is unreachable, else the original error untouched (a bug: the core answers 500).
 */
export function toStorageError(error: unknown, retryAfterSeconds: number): unknown {
  if (error instanceof StorageUnavailableError) return error;
  if (!isUnavailable(error)) return error;
  return new StorageUnavailableError('PostgreSQL is unavailable', {
    cause: error,
    retryAfterSeconds,
    reason: reasonOf(error),
  });
}

/**
 * The cause of an outage in one word, for the 503's log line and the metric's label: the first
 * SQLSTATE or errno in the error's chain (`57P01`, `ECONNREFUSED`), else what pg's message says
 * (`timeout`, `connection_terminated`). Always one of a small set: only these make an outage.
 */
export function reasonOf(error: unknown, depth = 0): string {
  if (typeof error !== 'object' || error === null || depth > 5) return 'unavailable';
  const code = codeOf(error);
  if (code !== undefined && (NETWORK_CODES.has(code) || /^[0-9A-Z]{5}$/.test(code))) return code;
  const message: unknown = Reflect.get(error, 'message');
  if (typeof message === 'string') {
    if (/timeout/i.test(message)) return 'timeout';
    if (message.includes('Connection terminated')) return 'connection_terminated';
  }
  if (error instanceof AggregateError && error.errors.length > 0) {
    return reasonOf(error.errors[0], depth + 1);
  }
  const cause: unknown = Reflect.get(error, 'cause');
  return cause === undefined ? 'unavailable' : reasonOf(cause, depth + 1);
}
