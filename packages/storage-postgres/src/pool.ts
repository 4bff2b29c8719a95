import pg, { type Pool } from 'pg';
import type { OwnedPoolOptions, ResolvedTimeouts } from './options.js';

/**
 * The pool a storage creates for itself when the host gives connection details only.
 *
 * `pool.on('error')` matters: when the server restarts, every idle pooled connection emits an
 * error. pg-pool drops that connection and re-emits the error on the pool, and an EventEmitter
 * `error` without a listener throws, which would crash the process during an outage.
 */
export function createOwnedPool(options: OwnedPoolOptions, timeouts: ResolvedTimeouts): Pool {
  if (options.connectionString === undefined && options.poolConfig === undefined) {
    throw new TypeError('give a pg Pool as `pool`, or `connectionString` / `poolConfig`');
  }
  const pool = new pg.Pool({
    application_name: 'petstore',
    keepAlive: true,
    ...options.poolConfig,
    ...(options.connectionString === undefined
      ? {}
      : { connectionString: options.connectionString }),
    connectionTimeoutMillis: timeouts.connectionTimeoutMillis,
    // No `statement_timeout` (or `options`) here: pg would send it as a startup parameter, which
    // PgBouncer and hosted poolers refuse. The executor sets it per transaction instead.
  });
  const onPoolError = options.onPoolError;
  pool.on('error', (error) => {
    onPoolError?.(error);
  });
  return pool;
}
