import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { dropSchema, hostPool, postgresUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, loadMigrations, migrate } from '../src/index.js';
import { runCli } from '../src/run-cli.js';
import { expectLockTimeout, holdMigrationLock } from './support/migration-lock.js';

const admin = hostPool();
const schemas: string[] = [];
const freshSchema = (prefix = 'migrate'): string => {
  const schema = uniqueSchema(prefix);
  schemas.push(schema);
  return schema;
};
afterAll(async () => {
  for (const schema of schemas) await dropSchema(admin, schema);
  await admin.end();
});

const recorded = async (schema: string): Promise<string[]> =>
  (
    await admin.query<{ name: string }>(
      `SELECT name FROM "${schema}".petstore_migrations ORDER BY version`,
    )
  ).rows.map((row) => row.name);

const tables = async (schema: string): Promise<string[]> =>
  (
    await admin.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
      [schema],
    )
  ).rows.map((row) => row.table_name);

describe('migrate()', () => {
  it('ships numbered SQL files, starting with 001_init', async () => {
    const migrations = await loadMigrations();
    expect(migrations.map((m) => m.name)[0]).toBe('001_init');
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });

  it('creates the schema and tables once; a second run applies nothing', async () => {
    const schema = freshSchema();
    const all = (await loadMigrations()).map((m) => m.name);
    const first = await migrate({ pool: admin, schema });
    expect(first.applied).toEqual(all);
    expect(await tables(schema)).toEqual([
      'idempotency_keys',
      'orders',
      'pets',
      'petstore_migrations',
    ]);
    const second = await migrate({ connectionString: postgresUrl(), schema });
    expect(second).toEqual({ applied: [], version: first.version });
    expect(await recorded(schema)).toEqual(all);
  });

  it('is safe from several pools at once on a fresh schema: each migration applied exactly once', async () => {
    const all = (await loadMigrations()).map((m) => m.name);
    const pools = [hostPool({ max: 2 }), hostPool({ max: 2 }), hostPool({ max: 2 })];
    try {
      // A few rounds: without the advisory lock, CREATE SCHEMA / CREATE TABLE race and fail.
      for (let round = 0; round < 3; round += 1) {
        const schema = freshSchema();
        const results = await Promise.all([
          ...pools.map((pool) => migrate({ pool, schema })),
          migrate({ connectionString: postgresUrl(), schema }),
        ]);
        expect(results.flatMap((r) => r.applied)).toEqual(all);
        expect(await recorded(schema)).toEqual(all);
      }
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('waits at most lockTimeoutMs for a lock another instance holds, then fails clearly', async () => {
    await expectLockTimeout(admin, postgresUrl(), freshSchema());
  });

  it('refuses a lockTimeoutMs that is not a positive integer', async () => {
    await expect(migrate({ pool: admin, lockTimeoutMs: 0 })).rejects.toThrow(
      'lockTimeoutMs must be a positive integer, got 0',
    );
  });

  it('refuses to continue when an applied migration file has changed', async () => {
    const schema = freshSchema();
    await migrate({ pool: admin, schema });
    await admin.query(`UPDATE "${schema}".petstore_migrations SET checksum = 'edited'`);
    await expect(migrate({ pool: admin, schema })).rejects.toThrow(
      /was changed after it was applied/,
    );
  });

  it('quotes the schema name: mixed case works, anything but a plain identifier is refused', async () => {
    const schema = freshSchema('Mixed_Case');
    await migrate({ pool: admin, schema });
    const storage = createPostgresStorage({ pool: admin, schema });
    const pet = await storage.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
    expect(await storage.getPet(pet.id)).toEqual(pet);
    await storage.close();
    for (const bad of [
      'x"; DROP SCHEMA public; --',
      '',
      '1abc',
      'pg_temp',
      'a'.repeat(64),
      'a-b',
    ]) {
      await expect(migrate({ pool: admin, schema: bad })).rejects.toThrow(TypeError);
      expect(() => createPostgresStorage({ pool: admin, schema: bad })).toThrow(TypeError);
    }
  });
});

describe('petstore-migrate CLI', () => {
  it('migrates the schema named by --schema using DATABASE_URL, then reports up to date', async () => {
    const schema = freshSchema('cli');
    const migrations = await loadMigrations();
    const names = migrations.map((m) => m.name).join(', ');
    const version = migrations.length;
    const out: string[] = [];
    const env = { DATABASE_URL: postgresUrl() };
    expect(
      await runCli(
        ['--schema', schema],
        env,
        (l) => out.push(l),
        (l) => out.push(l),
      ),
    ).toBe(0);
    expect(
      await runCli(
        ['--schema', schema],
        env,
        (l) => out.push(l),
        (l) => out.push(l),
      ),
    ).toBe(0);
    expect(out).toEqual([
      `schema "${schema}": applied ${names} (now version ${version})`,
      `schema "${schema}" is up to date (version ${version})`,
    ]);
    expect(await tables(schema)).toContain('pets');
  });

  it('exits 2 with usage when DATABASE_URL is missing or an option is unknown', async () => {
    const err: string[] = [];
    expect(
      await runCli(
        [],
        {},
        () => undefined,
        (l) => err.push(l),
      ),
    ).toBe(2);
    expect(
      await runCli(
        ['--nope'],
        { DATABASE_URL: postgresUrl() },
        () => undefined,
        (l) => err.push(l),
      ),
    ).toBe(2);
    expect(err.join('\n')).toMatch(/DATABASE_URL is not set[\s\S]*Usage: /);
  });

  it('--lock-timeout-ms bounds the wait for another instance: exits 1 saying so; a bad value exits 2', async () => {
    const schema = freshSchema('cli');
    const env = { DATABASE_URL: postgresUrl() };
    const err: string[] = [];
    const lock = await holdMigrationLock(admin, schema);
    try {
      const started = Date.now();
      expect(
        await runCli(
          ['--schema', schema, '--lock-timeout-ms', '300'],
          env,
          () => undefined,
          (l) => err.push(l),
        ),
      ).toBe(1);
      // The default wait is 5000 ms: finishing well before it shows the option took effect.
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await lock.release();
    }
    expect(err).toEqual([
      expect.stringMatching(
        new RegExp(`^migration failed: migrating schema "${schema}" waited 300 ms for a lock`),
      ),
    ]);
    for (const bad of ['0', '-5', '1.5', '1e3', 'soon', '']) {
      const usage: string[] = [];
      expect(
        await runCli(
          [`--lock-timeout-ms=${bad}`],
          env,
          () => undefined,
          (l) => usage.push(l),
        ),
      ).toBe(2);
      expect(usage.join('\n')).toContain(
        `--lock-timeout-ms must be a positive whole number of milliseconds, got "${bad}"`,
      );
    }
  });

  it('exits 1 without printing the connection string when the server is unreachable', async () => {
    const err: string[] = [];
    const url = 'postgres://someone:s3cret@127.0.0.1:1/db';
    expect(
      await runCli(
        [],
        { DATABASE_URL: url },
        () => undefined,
        (l) => err.push(l),
      ),
    ).toBe(1);
    expect(err.join('\n')).toMatch(/^migration failed: /);
    expect(err.join('\n')).not.toContain('s3cret');
  });

  it('runs as a process from its entry file', async () => {
    const schema = freshSchema('cli');
    const entry = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', entry, '--schema', schema],
      {
        env: { ...process.env, DATABASE_URL: postgresUrl() },
        timeout: 30_000,
      },
    );
    expect(stdout.trim()).toMatch(new RegExp(`^schema "${schema}": applied 001_init, `));
  });
});
