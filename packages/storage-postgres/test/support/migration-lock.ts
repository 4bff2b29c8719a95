import type pg from 'pg';
import { expect } from 'vitest';
import { loadMigrations, MigrationLockTimeoutError, migrate } from '../../src/index.js';
import { MIGRATION_LOCK_CLASS, migrationLockKey } from '../../src/migrate.js';

/** Takes the migration lock of `schema` in an open transaction, as a migrating instance does. */
export async function holdMigrationLock(
  pool: pg.Pool,
  schema: string,
): Promise<{ release(): Promise<void> }> {
  const client = await pool.connect();
  await client.query('BEGIN');
  await client.query('SELECT pg_advisory_xact_lock($1, $2)', [
    MIGRATION_LOCK_CLASS,
    migrationLockKey(schema),
  ]);
  return {
    async release() {
      await client.query('COMMIT');
      client.release();
    },
  };
}

/** Several pools and a connection string migrate one fresh schema at once: each file applied once. */
export async function expectConcurrentMigrationsApplyOnce(
  pools: readonly pg.Pool[],
  connectionString: string,
  schema: string,
  recorded: (schema: string) => Promise<string[]>,
): Promise<void> {
  const all = (await loadMigrations()).map((m) => m.name);
  const results = await Promise.all([
    ...pools.map((pool) => migrate({ pool, schema })),
    migrate({ connectionString, schema }),
  ]);
  expect(results.flatMap((r) => r.applied)).toEqual(all);
  expect(await recorded(schema)).toEqual(all);
}

/** With the lock held elsewhere, migrate() fails clearly within lockTimeoutMs (plus slack). */
export async function expectLockTimeout(
  holder: pg.Pool,
  connectionString: string,
  schema: string,
): Promise<void> {
  const lock = await holdMigrationLock(holder, schema);
  try {
    const started = Date.now();
    const error = await migrate({ connectionString, schema, lockTimeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    const waited = Date.now() - started;
    expect(error).toBeInstanceOf(MigrationLockTimeoutError);
    expect((error as Error).message).toMatch(
      new RegExp(`^migrating schema "${schema}" waited 300 ms for a lock another session holds`),
    );
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(3000);
  } finally {
    await lock.release();
  }
  // Once the lock is free, the same call succeeds.
  expect((await migrate({ connectionString, schema, lockTimeoutMs: 300 })).version).toBeGreaterThan(
    0,
  );
}
