import type { PetStorage } from '@petstore/core';
import {
  dropSchema,
  hostPool,
  pgbouncerUrl,
  postgresUrl,
  uniqueSchema,
} from '@petstore/test-postgres/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';
import { messageCounter } from './support/message-counter.js';
import { addressOf, throughProxy } from './support/servers.js';
import { expectServerCancelsEveryMethod, lockTables } from './support/statement-timeout.js';

// Named statements: parsed and planned once per connection where the connection reaches
// PostgreSQL directly; through a transaction-mode pooler that cannot keep them (PgBouncer 1.18),
// never a failed call, whatever is configured.
const admin = hostPool();
const schema = uniqueSchema('named');
beforeAll(() => migrate({ pool: admin, schema }));
afterAll(async () => {
  await dropSchema(admin, schema);
  await admin.end();
});

const pet = (name: string) => ({ name, categoryId: 1, status: 'available' as const });
const claim = (key: string) => ({ scope: 's', key, fingerprint: 'f', retentionMs: 60_000 });

/** One call of every statement on the request path (and createOrder), as one round. */
async function everyStatement(storage: PetStorage, tag: string): Promise<number> {
  const created = await storage.createPet(pet(tag));
  expect((await storage.createPetIdempotent(pet(tag), claim(tag))).kind).toBe('created');
  expect((await storage.createPetIdempotent(pet(tag), claim(tag))).kind).toBe('replayed');
  expect((await storage.getPet(created.id))?.name).toBe(tag);
  await storage.listPets({ limit: 21 });
  await storage.listPets({ limit: 21, status: 'available', afterId: 1 });
  await storage.createOrder({
    petId: created.id,
    quantity: 1,
    shipDate: '2030-01-01T00:00:00.000Z',
    status: 'placed',
    complete: false,
  });
  await storage.listOrders({ limit: 21 });
  return 8;
}

const countPets = async (name: string): Promise<number> =>
  Number(
    (
      await admin.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM "${schema}".pets WHERE name = $1`,
        [name],
      )
    ).rows[0]?.n,
  );

describe('named statements on a direct connection', () => {
  it('each statement is parsed once per connection, then only bound: no simple query, no timeout statement per call', async () => {
    const counter = await messageCounter(...addressOf(postgresUrl()));
    const storage = createPostgresStorage({
      connectionString: throughProxy(postgresUrl(), counter.port),
      poolConfig: { max: 1 },
      schema,
    });
    try {
      await everyStatement(storage, 'warm');
      const warm = counter.take();
      // The connection's setup (one simple query), then each of the 7 statements' one Parse.
      expect(warm.Q).toBe(1);
      expect(warm.P).toBe(7);
      let calls = 0;
      for (let round = 0; round < 10; round++) calls += await everyStatement(storage, `r${round}`);
      // Each call one Bind and one Sync: the session keeps the statement timeout (an owned
      // pool's direct connection), so nothing sets it per call.
      expect(counter.take()).toEqual({ B: calls, D: calls, E: calls, S: calls });
    } finally {
      await storage.close();
      await counter.close();
    }
  });

  it('with namedStatements off, every call is parsed again', async () => {
    const counter = await messageCounter(...addressOf(postgresUrl()));
    const storage = createPostgresStorage({
      connectionString: throughProxy(postgresUrl(), counter.port),
      poolConfig: { max: 1 },
      schema,
      namedStatements: 'off',
    });
    try {
      await everyStatement(storage, 'off-warm');
      counter.take();
      const calls = await everyStatement(storage, 'off');
      const { P = 0, Q = 0 } = counter.take();
      expect(P + Q).toBeGreaterThanOrEqual(calls);
    } finally {
      await storage.close();
      await counter.close();
    }
  });

  it('pg_prepared_statements on the connection holds every statement by a name made of its text; the host pool keeps no statement_timeout', async () => {
    const pool = hostPool({ max: 1 });
    const storage = createPostgresStorage({ pool, schema, queryTimeoutMillis: 4321 });
    try {
      await everyStatement(storage, 'seen');
      const { rows } = await pool.query<{ name: string; statement: string }>(
        'SELECT name, statement FROM pg_prepared_statements ORDER BY statement',
      );
      expect(rows.map((row) => row.name).every((name) => /^petstore_[\w-]{16}$/.test(name))).toBe(
        true,
      );
      const texts = rows.map((row) => row.statement).join('\n');
      for (const statement of [
        `INSERT INTO "${schema}".pets`,
        `INSERT INTO "${schema}".orders`,
        // The keyed create as one statement, not the function call sent when unnamed.
        'pg_try_advisory_xact_lock($8::bigint)',
        `FROM "${schema}".pets WHERE id = $1`,
        `FROM "${schema}".pets WHERE id > $1`,
        'WHERE (status, id) > ($2::text, $1::bigint)',
        `FROM "${schema}".orders WHERE id > $1`,
        // A host pool's sessions keep no timeout: it is set per transaction, by a named statement.
        "set_config('statement_timeout', '4321', true)",
      ]) {
        expect(texts).toContain(statement);
      }
      expect(texts).not.toContain('create_pet_once');
      const timeout = await pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
      expect(timeout.rows[0]?.statement_timeout).toBe('0');
    } finally {
      await storage.close();
      await pool.end();
    }
  });

  it("an owned pool's session timeout cancels every method stuck behind a lock", async () => {
    const storage = createPostgresStorage({
      connectionString: postgresUrl(),
      schema,
      queryTimeoutMillis: 300,
    });
    await everyStatement(storage, 'before-lock');
    const lock = await lockTables(admin, schema);
    try {
      await expectServerCancelsEveryMethod(storage, 1200);
    } finally {
      await lock.release();
      await storage.close();
    }
  });

  it('a connection that lost its prepared statements (DEALLOCATE ALL) fails no call: the write runs once, unnamed, and the pool says so once', async () => {
    const pool = hostPool({ max: 1 });
    const warnings: string[] = [];
    const storage = createPostgresStorage({
      pool,
      schema,
      onWarning: (message) => warnings.push(message),
    });
    try {
      await everyStatement(storage, 'before-deallocate');
      // pg still believes they are parsed on this connection: its next Bind names a statement
      // the server no longer has (26000).
      await pool.query('DEALLOCATE ALL');
      await storage.createPet(pet('after-deallocate'));
      await storage.createPet(pet('after-deallocate'));
      await everyStatement(storage, 'after');
      expect(await countPets('after-deallocate')).toBe(2);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/cannot keep prepared statements \(26000/);
    } finally {
      await storage.close();
      await pool.end();
    }
  });

  it('refuses a namedStatements setting it does not know', () => {
    expect(() =>
      createPostgresStorage({
        connectionString: postgresUrl(),
        schema,
        namedStatements: 'sometimes' as 'on',
      }),
    ).toThrow('namedStatements must be auto, on or off, got sometimes');
  });
});

// The shared PgBouncer of the test run: transaction mode, 20 server connections, Debian's 1.18.
const bouncer = pgbouncerUrl();

describe.skipIf(bouncer === '')('through PgBouncer 1.18 in transaction mode', () => {
  it('namedStatements on, under concurrent load: no call fails, each pool says so once, every create is stored once', async () => {
    const warnings: string[][] = [];
    const listening = (index: number) => {
      warnings[index] = [];
      return (message: string) => warnings[index]?.push(message);
    };
    const hostPoolViaBouncer = new pg.Pool({ connectionString: bouncer, max: 10 });
    hostPoolViaBouncer.on('error', () => undefined);
    const storages = [
      ...[0, 1, 2].map((index) =>
        createPostgresStorage({
          connectionString: bouncer,
          poolConfig: { max: 10 },
          schema,
          namedStatements: 'on',
          onWarning: listening(index),
        }),
      ),
      createPostgresStorage({
        pool: hostPoolViaBouncer,
        schema,
        namedStatements: 'on',
        onWarning: listening(3),
      }),
    ];
    try {
      const failures: unknown[] = [];
      let creates = 0;
      for (let wave = 0; wave < 10; wave++) {
        const calls = storages.flatMap((storage, index) =>
          Array.from({ length: 10 }, async (_, n) => {
            const tag = `bouncer-${wave}-${index}-${n}`;
            creates += 2;
            await everyStatement(storage, tag).catch((error: unknown) => failures.push(error));
          }),
        );
        await Promise.all(calls);
      }
      expect(failures).toEqual([]);
      for (const heard of warnings) expect(heard.length).toBeLessThanOrEqual(1);
      // The pooler did move clients between server connections: pools fell back.
      expect(warnings.flat().length).toBeGreaterThan(0);
      // A call sent again after a failed Parse or Bind never created twice.
      const { rows } = await admin.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM "${schema}".pets WHERE name LIKE 'bouncer-%'`,
      );
      expect(Number(rows[0]?.n)).toBe(creates);
      // No session of the pooler's was given the storage's statement timeout.
      const shown = await Promise.all(
        Array.from({ length: 20 }, () =>
          hostPoolViaBouncer.query<{ statement_timeout: string }>('SHOW statement_timeout'),
        ),
      );
      expect(new Set(shown.map((result) => result.rows[0]?.statement_timeout))).toEqual(
        new Set(['0']),
      );
    } finally {
      await Promise.all(storages.map((storage) => storage.close()));
      await hostPoolViaBouncer.end();
    }
  }, 60_000);

  it('namedStatements auto: nothing is named through the pooler (its key data names no backend), so nothing falls back', async () => {
    const counter = await messageCounter(...addressOf(bouncer));
    const warnings: string[] = [];
    const storage = createPostgresStorage({
      connectionString: throughProxy(bouncer, counter.port),
      poolConfig: { max: 1 },
      schema,
      onWarning: (message) => warnings.push(message),
    });
    try {
      await everyStatement(storage, 'auto-warm');
      counter.take();
      await storage.createPet(pet('auto'));
      await storage.listPets({ limit: 21 });
      // Each a simple query with its SET LOCAL statement_timeout: nothing prepared.
      expect(counter.take()).toEqual({ Q: 2 });
      expect(warnings).toEqual([]);
    } finally {
      await storage.close();
      await counter.close();
    }
  });
});
