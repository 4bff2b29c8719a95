import { runStorageContract } from '@petstore/conformance';
import { dropSchema, hostPool, pgbouncerUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';
import {
  expectConcurrentMigrationsApplyOnce,
  expectLockTimeout,
} from './support/migration-lock.js';
import { expectServerCancelsEveryMethod, lockTables } from './support/statement-timeout.js';

// The storage and migrate() through PgBouncer in transaction mode with its default
// ignore_startup_parameters (see @petstore/test-postgres): unchanged options, only the URL differs.
// Skipped, and said so once by the global setup, when the run has no pgbouncer binary.
const bouncer = pgbouncerUrl();
const direct = hostPool();
const pooled = (config: pg.PoolConfig = {}): pg.Pool => {
  const pool = new pg.Pool({ connectionString: bouncer, max: 10, ...config });
  pool.on('error', () => undefined);
  return pool;
};
const viaBouncer = pooled();
afterAll(async () => {
  await Promise.all([direct.end(), viaBouncer.end()]);
});

describe.skipIf(bouncer === '')('through PgBouncer (pool_mode = transaction)', () => {
  it('the fixture is production-like: PgBouncer refuses statement_timeout as a startup parameter', async () => {
    const client = new pg.Client({ connectionString: bouncer, statement_timeout: 1000 });
    client.on('error', () => undefined);
    const error = await client.connect().catch((e: unknown) => e);
    expect(String(error)).toContain('unsupported startup parameter');
    await client.end().catch(() => undefined);
  });

  runStorageContract({
    name: 'postgres through PgBouncer (storage-owned pool)',
    create: async () => {
      const schema = uniqueSchema('bouncer');
      await migrate({ connectionString: bouncer, schema });
      return {
        storage: createPostgresStorage({ connectionString: bouncer, schema }),
        cleanup: () => dropSchema(direct, schema),
      };
    },
  });

  runStorageContract({
    name: 'postgres through PgBouncer (host pool)',
    create: async () => {
      const schema = uniqueSchema('bouncer');
      await migrate({ pool: viaBouncer, schema });
      return {
        storage: createPostgresStorage({ pool: viaBouncer, schema }),
        cleanup: () => dropSchema(direct, schema),
      };
    },
  });

  describe('migrate()', () => {
    const recorded = async (schema: string): Promise<string[]> =>
      (
        await direct.query<{ name: string }>(
          `SELECT name FROM "${schema}".petstore_migrations ORDER BY version`,
        )
      ).rows.map((row) => row.name);

    it('from several pools at once, each migration is applied exactly once', async () => {
      const pools = [pooled({ max: 2 }), pooled({ max: 2 }), pooled({ max: 2 })];
      const schemas: string[] = [];
      try {
        for (let round = 0; round < 3; round += 1) {
          const schema = uniqueSchema('bouncer_migrate');
          schemas.push(schema);
          await expectConcurrentMigrationsApplyOnce(pools, bouncer, schema, recorded);
        }
      } finally {
        await Promise.all(pools.map((pool) => pool.end()));
        for (const schema of schemas) await dropSchema(direct, schema);
      }
    });

    it('behind a lock another instance holds, fails clearly within lockTimeoutMs', async () => {
      const schema = uniqueSchema('bouncer_locked');
      try {
        await expectLockTimeout(viaBouncer, bouncer, schema);
      } finally {
        await dropSchema(direct, schema);
      }
    });
  });

  it('the statement timeout still applies on the server: every method stuck behind a lock is cancelled', async () => {
    const schema = uniqueSchema('bouncer_timeout');
    await migrate({ pool: direct, schema });
    const storage = createPostgresStorage({
      connectionString: bouncer,
      schema,
      queryTimeoutMillis: 300,
    });
    const lock = await lockTables(direct, schema);
    try {
      await expectServerCancelsEveryMethod(storage, 1200);
    } finally {
      await lock.release();
      await storage.close();
      await dropSchema(direct, schema);
    }
  });
});
