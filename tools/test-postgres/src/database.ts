import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** The server every test file shares (its own schema each): see test/global-setup.ts. */
export const postgresUrl = (): string => inject('postgresUrl');

/** A schema name no other test (or parallel file) uses. */
export const uniqueSchema = (prefix: string): string =>
  `${prefix}_${randomBytes(6).toString('hex')}`;

/** A pool the test owns, as a host application would create it. */
export function hostPool(config: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: postgresUrl(), max: 10, ...config });
  // A host's duty: idle connections report errors here when the server goes away.
  pool.on('error', () => undefined);
  return pool;
}

export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** The same server through PgBouncer in transaction mode; '' when the run has no pgbouncer. */
export const pgbouncerUrl = (): string => inject('pgbouncerUrl');
