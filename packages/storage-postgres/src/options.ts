import type { Pool, PoolConfig } from 'pg';
import type { NamedStatements } from './prepared.js';
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
  /**
   * Reads (`getPet`, `listPets`, `listOrders`) from a replica, through this pool of yours
   * (`close()` leaves it open). Each read first learns the primary's WAL position, and the
   * replica answers only once it has replayed that far: a read sees every write acknowledged
   * before it began, by any instance. A replica behind, failing or unreachable leaves the read
   * to the primary. Writes always go to the primary.
   */
  readonly readPool?: Pool;
  /** The same, with a pool the storage creates from this URL (and ends on `close()`). */
  readonly readConnectionString?: string;
  /** Passed to `new pg.Pool()` for the pool made from `readConnectionString` (`max`, `ssl`, ...). */
  readonly readPoolConfig?: PoolConfig;
  /**
   * Longest a read waits on the replica for it to replay the primary's position, before the
   * primary answers it. Default 100.
   */
  readonly replicaWaitMillis?: number;
  /**
   * Longest a read may take on the replica, connecting included, before the primary answers it
   * instead; a replica that failed, or was found behind, is then left alone for as long (reads go
   * straight to the primary meanwhile). Default 1000.
   */
  readonly replicaTimeoutMillis?: number;
  /**
   * Called with where each read went (for metrics): see `ReplicaReadOutcome`; for `failed`, with
   * what the replica failed with (to log: a wrong password, a refused connection...).
   */
  readonly onReplicaRead?: (outcome: ReplicaReadOutcome, cause?: Error) => void;
  /**
   * Named statements, which PostgreSQL parses and plans once per connection: `auto` (default) on
   * connections that reach PostgreSQL directly, not through a pooler; `on` on every connection
   * (a pooler that keeps prepared statements, such as PgBouncer 1.21+ with
   * `max_prepared_statements`); `off` never. A pool whose connection cannot keep one falls back
   * to unnamed statements whatever this says, and tells `onWarning` once.
   */
  readonly namedStatements?: NamedStatements;
  /**
   * Told what an operator should know and no request fails of: a pool fell back to unnamed
   * statements. Default: `process.emitWarning`.
   */
  readonly onWarning?: (message: string) => void;
}

/**
 * Where a read went with a replica configured: `replica` (answered there), or the primary because
 * the replica was `behind` (not replayed to the primary's position in time), `failed` (an error,
 * a timeout, unreachable) or `resting` (failed or behind moments ago: left alone for a while).
 */
export type ReplicaReadOutcome = 'replica' | 'behind' | 'failed' | 'resting';

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

export interface ResolvedReplicaOptions {
  readonly waitMillis: number;
  readonly timeoutMillis: number;
}

export function resolveReplicaOptions(options: CommonOptions): ResolvedReplicaOptions {
  if (options.readPool !== undefined && options.readConnectionString !== undefined) {
    throw new TypeError('give readPool or readConnectionString, not both');
  }
  const wait = options.replicaWaitMillis ?? 100;
  if (!Number.isSafeInteger(wait) || wait < 0) {
    throw new TypeError(`replicaWaitMillis must be a whole number, got ${String(wait)}`);
  }
  return {
    waitMillis: wait,
    timeoutMillis: positiveInteger('replicaTimeoutMillis', options.replicaTimeoutMillis, 1000),
  };
}
