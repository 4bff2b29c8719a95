import { hostPool } from '@petstore/test-postgres/vitest';
import type { PoolClient } from 'pg';
import { afterAll, beforeAll } from 'vitest';

/**
 * One connection of a pool of its own, checked out for the whole test file: given back and the
 * pool ended after the file. Call at the file's top level; the getter works inside its tests.
 */
export function fileConnection(): () => PoolClient {
  const pool = hostPool();
  let client: PoolClient | undefined;
  beforeAll(async () => {
    client = await pool.connect();
  });
  afterAll(async () => {
    client?.release();
    await pool.end();
  });
  return () => {
    if (client === undefined) throw new Error('no connection outside the tests');
    return client;
  };
}
