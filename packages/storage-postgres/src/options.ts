import type { Pool, PoolConfig } from 'pg';
import { DEFAULT_SCHEMA, quoteSchema } from './schema-name.js';

interface CommonOptions {
  /** Schema holding the tables (created by `migrate()` with the same name). Default `petstore`. */
  readonly schema?: string;
  /** Longest wait for a connection from the pool, including connecting. Default 3000. */
  readonly connectionTimeoutMillis?: number;
  /** Longest a statement may run. Default 5000. */
  readonly queryTimeoutMillis?: number;
  /** `Retry-After` (seconds) sent with the 503 when the database is unreachable. Default 1. */
  readonly retryAfterSeconds?: number;
  /**
   * How often expired Idempotency-Key claims are deleted (up to 1,000 a time), off the request
   * path. Default 60000; `0` turns it off (run the purge yourself, or let one instance do it).
   */
  readonly purgeIntervalMillis?: number;
}

/** Use the host's pool. The host owns it: `close()` leaves it open. */
export interface HostPoolOptions extends CommonOptions {
  readonly pool: Pool;
}

/** Let the storage create (and on `close()`, end) its own pool. */
export interface OwnedPoolOptions extends CommonOptions {
  readonly pool?: undefined;
  /** `postgres://user:password@host:5432/database`. */
  readonly connectionString?: string;
  /** Passed to `new pg.Pool()`; the timeouts above override its own timeout settings. */
  readonly poolConfig?: PoolConfig;
  /**
   * Errors of idle pooled connections (the server restarted, a connection was killed). The pool
   * has already dropped that connection; the next query reconnects. Default: ignored.
   */
  readonly onPoolError?: (error: Error) => void;
}

export type PostgresStorageOptions = HostPoolOptions | OwnedPoolOptions;

export const DEFAULT_CONNECTION_TIMEOUT_MILLIS = 3000;
export const DEFAULT_QUERY_TIMEOUT_MILLIS = 5000;

export interface ResolvedTimeouts {
  readonly connectionTimeoutMillis: number;
  readonly queryTimeoutMillis: number;
  readonly retryAfterSeconds: number;
}

const positiveInteger = (name: string, value: number | undefined, fallback: number): number => {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < 1) {
    throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return resolved;
};

export function resolveTimeouts(options: CommonOptions): ResolvedTimeouts {
  return {
    connectionTimeoutMillis: positiveInteger(
      'connectionTimeoutMillis',
      options.connectionTimeoutMillis,
      DEFAULT_CONNECTION_TIMEOUT_MILLIS,
    ),
    queryTimeoutMillis: positiveInteger(
      'queryTimeoutMillis',
      options.queryTimeoutMillis,
      DEFAULT_QUERY_TIMEOUT_MILLIS,
    ),
    retryAfterSeconds: positiveInteger('retryAfterSeconds', options.retryAfterSeconds, 1),
  };
}

export const resolveSchema = (schema: string | undefined): string =>
  quoteSchema(schema ?? DEFAULT_SCHEMA);

const DEFAULT_PURGE_INTERVAL_MILLIS = 60_000;

/** The purge interval, or 0 for none. */
export function resolvePurgeInterval(options: CommonOptions): number {
  if (options.purgeIntervalMillis === 0) return 0;
  return positiveInteger(
    'purgeIntervalMillis',
    options.purgeIntervalMillis,
    DEFAULT_PURGE_INTERVAL_MILLIS,
  );
}
