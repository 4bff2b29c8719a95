import { isStorageUnavailable, type PetStorage, StorageUnavailableError } from '@petstore/core';
import { dropSchema, hostPool, postgresUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';
import { isUnavailable, reasonOf } from '../src/unavailable.js';
import {
  addressOf,
  refusedPort,
  type StartupHoldingProxy,
  silentServer,
  startupHoldingProxy,
  tcpProxy,
  throughProxy,
} from './support/servers.js';
import {
  everyStorageCall,
  expectServerCancelsEveryMethod,
  lockTables,
} from './support/statement-timeout.js';

const admin = hostPool();
const schema = uniqueSchema('outage');
beforeAll(() => migrate({ pool: admin, schema }));
afterAll(async () => {
  await dropSchema(admin, schema);
  await admin.end();
});

/** Calls every storage method; each must reject with StorageUnavailableError. */
async function expectEveryMethodUnavailable(
  storage: PetStorage,
  withinMillis: number,
): Promise<void> {
  const calls = everyStorageCall(storage, { name: 'x', categoryId: 1, status: 'available' });
  const started = Date.now();
  const outcomes = await Promise.all(
    calls.map(async ([name, call]) => {
      try {
        await call();
        return `${name}: resolved`;
      } catch (error) {
        return `${name}: ${error instanceof StorageUnavailableError ? 'unavailable' : String(error)}`;
      }
    }),
  );
  expect(outcomes).toEqual(calls.map(([name]) => `${name}: unavailable`));
  expect(Date.now() - started).toBeLessThan(withinMillis);
}

/** pg_terminate_backend on every session of one application_name. */
async function terminate(applicationName: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    `SELECT count(pg_terminate_backend(pid))::text AS n FROM pg_stat_activity
     WHERE application_name = $1 AND pid <> pg_backend_pid()`,
    [applicationName],
  );
  return Number(rows[0]?.n);
}

/** Host and port of the test server, for a proxy in front of it. */
const upstreamAddress = (): [string, number] => addressOf(postgresUrl());

/** The test server's URL, reached through a proxy on 127.0.0.1:`port`. */
const throughPort = (port: number): string => throughProxy(postgresUrl(), port);

/**
 * Ends the held connection on the server as its startup completes, then lets the client read
 * the end of its startup and the server's FATAL in one go, as the pool hands it out.
 */
async function terminateAtHandOut(
  proxy: StartupHoldingProxy,
  applicationName: string,
): Promise<void> {
  await proxy.held;
  expect(await terminate(applicationName)).toBe(1);
  await proxy.upstreamClosed;
  proxy.release();
}

/** Holds an exclusive lock on a table until `release()`, so statements on it wait. */
async function lockTable(table: string): Promise<{ release(): Promise<void> }> {
  const client = await admin.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE "${schema}".${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await client.query('COMMIT');
      client.release();
    },
  };
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

describe('an unreachable database is StorageUnavailableError, within the timeouts', () => {
  it('connection refused: every method, quickly', async () => {
    const port = await refusedPort();
    const storage = createPostgresStorage({
      connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
      schema,
    });
    await expectEveryMethodUnavailable(storage, 2000);
    await storage.close();
  });

  it('a server that accepts and never answers: every method, after connectionTimeoutMillis', async () => {
    const silent = await silentServer();
    try {
      const storage = createPostgresStorage({
        connectionString: `postgres://postgres@127.0.0.1:${silent.port}/postgres`,
        schema,
        connectionTimeoutMillis: 300,
      });
      await expectEveryMethodUnavailable(storage, 2000);
      await storage.close();
    } finally {
      await silent.close();
    }
  });

  it('a host pool with no timeouts of its own still cannot hang a call', async () => {
    const silent = await silentServer();
    const pool = new pg.Pool({
      connectionString: `postgres://postgres@127.0.0.1:${silent.port}/postgres`,
    });
    pool.on('error', () => undefined);
    try {
      const storage = createPostgresStorage({
        pool,
        schema,
        connectionTimeoutMillis: 200,
        queryTimeoutMillis: 200,
      });
      // Bound: connection 200 + query 200 + 1 s grace.
      await expectEveryMethodUnavailable(storage, 2500);
      await storage.close();
    } finally {
      await silent.close();
      // The pool's connect attempts never finish against a silent server: do not wait for them.
      void pool.end().catch(() => undefined);
    }
  });

  // With a pool of one, the second call can only succeed on a new connection: the silent one
  // must have been closed, not left checked out (it would be, until TCP gave up, for hours).
  it('a server that falls silent mid-query (a partition): 503 within the bound, and that connection is closed', async () => {
    const proxy = await tcpProxy(...upstreamAddress());
    const storage = createPostgresStorage({
      connectionString: throughPort(proxy.port),
      schema,
      poolConfig: { max: 1 },
      connectionTimeoutMillis: 200,
      queryTimeoutMillis: 200,
    });
    try {
      expect(await storage.listPets({ limit: 1 })).toBeInstanceOf(Array);
      proxy.muteAll();
      const started = Date.now();
      const error = await storage.listPets({ limit: 1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      // Bound: connection 200 + query 200 + 1 s grace.
      expect(Date.now() - started).toBeLessThan(2000);
      expect(await storage.listPets({ limit: 1 })).toBeInstanceOf(Array);
    } finally {
      await storage.close();
      await proxy.close();
    }
  });

  it("a host pool's connection that arrives after the deadline goes straight back to the pool", async () => {
    const pool = new pg.Pool({ connectionString: postgresUrl(), max: 1 });
    const storage = createPostgresStorage({
      pool,
      schema,
      connectionTimeoutMillis: 100,
      queryTimeoutMillis: 100,
    });
    try {
      const held = await pool.connect();
      const error = await storage.listPets({ limit: 1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      // The storage's checkout is still queued in the pool: this connection goes to it.
      held.release();
      await expect.poll(() => pool.idleCount).toBe(1);
      expect(pool.totalCount).toBe(1);
      expect(await storage.listPets({ limit: 1 })).toBeInstanceOf(Array);
    } finally {
      await storage.close();
      await pool.end();
    }
  });
});

describe('the reason of an outage, for logs and metrics', () => {
  const reasonOfCall = async (connectionString: string, connectionTimeoutMillis = 300) => {
    const storage = createPostgresStorage({ connectionString, schema, connectionTimeoutMillis });
    const error = await storage.listPets({ limit: 1 }).catch((e: unknown) => e);
    await storage.close();
    expect(error).toBeInstanceOf(StorageUnavailableError);
    return (error as StorageUnavailableError).reason;
  };

  it('is the errno of a refused connection, `timeout` for a silent server, `closed` after close()', async () => {
    expect(await reasonOfCall(`postgres://postgres@127.0.0.1:${await refusedPort()}/x`)).toBe(
      'ECONNREFUSED',
    );
    const silent = await silentServer();
    try {
      expect(await reasonOfCall(`postgres://postgres@127.0.0.1:${silent.port}/x`)).toBe('timeout');
    } finally {
      await silent.close();
    }
    const storage = createPostgresStorage({ connectionString: postgresUrl(), schema });
    await storage.close();
    const closed = await storage.listPets({ limit: 1 }).catch((e: unknown) => e);
    expect((closed as StorageUnavailableError).reason).toBe('closed');
  });

  it('is the first SQLSTATE or errno of the chain, else a word from the message', () => {
    const cases: [unknown, string][] = [
      [Object.assign(new Error('x'), { code: '57P01' }), '57P01'],
      [
        new Error('outer', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
        'ECONNRESET',
      ],
      [new Error('Connection terminated unexpectedly'), 'connection_terminated'],
      [new Error('timeout exceeded when trying to connect'), 'timeout'],
      [
        new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]),
        'ECONNREFUSED',
      ],
      [new Error('something else'), 'unavailable'],
    ];
    for (const [error, reason] of cases) expect(reasonOf(error), String(error)).toBe(reason);
  });
});

describe('statement timeouts', () => {
  it('a statement stuck behind a lock is cancelled by the server: 503, and nothing is stored', async () => {
    const storage = createPostgresStorage({
      connectionString: postgresUrl(),
      schema,
      queryTimeoutMillis: 300,
    });
    const lock = await lockTable('pets');
    try {
      const started = Date.now();
      const error = await storage
        .createPet({ name: 'stuck', categoryId: 1, status: 'sold' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect((error as Error).cause).toMatchObject({ code: '57014' }); // query_canceled
      // The reason operators see on the 503's log line and the metric's label.
      expect((error as StorageUnavailableError).reason).toBe('57014');
      expect(Date.now() - started).toBeLessThan(1300);
    } finally {
      await lock.release();
    }
    expect(await countPets('stuck')).toBe(0);
    await storage.close();
  });
});

describe('statement timeouts travel with the work', () => {
  it('every method, reads included, is cancelled by the server on a host pool with no statement_timeout of its own', async () => {
    const pool = hostPool();
    const storage = createPostgresStorage({ pool, schema, queryTimeoutMillis: 300 });
    const lock = await lockTables(admin, schema);
    try {
      // The client-side backstop would fire at 4300 ms (3000 + 300 + 1000), with another error.
      await expectServerCancelsEveryMethod(storage, 1200);
    } finally {
      await lock.release();
    }
    expect(await countPets('stuck')).toBe(0);
    await pool.end();
  });
});

describe('terminated connections', () => {
  it('idle connections killed by the server: the owned pool reports them to onPoolError and reconnects', async () => {
    const applicationName = uniqueSchema('idle');
    const poolErrors: Error[] = [];
    const storage = createPostgresStorage({
      poolConfig: { connectionString: postgresUrl(), application_name: applicationName },
      schema,
      onPoolError: (error) => poolErrors.push(error),
    });
    await Promise.all([storage.listPets({ limit: 1 }), storage.listPets({ limit: 1 })]);
    expect(await terminate(applicationName)).toBeGreaterThan(0);
    // Without the pool's error listener the process would crash here (uncaught 'error' event).
    await expect.poll(() => poolErrors.length).toBeGreaterThan(0);
    expect(poolErrors[0]).toMatchObject({ code: '57P01' });
    expect(await storage.listPets({ limit: 1 })).toBeInstanceOf(Array);
    await storage.close();
  });

  it('pooled connections lost without a word: reads retry on a fresh connection, writes report 503', async () => {
    const proxy = await tcpProxy(...upstreamAddress());
    const storage = createPostgresStorage({ connectionString: throughPort(proxy.port), schema });
    try {
      const open = () => Promise.all([1, 2, 3].map(() => storage.listPets({ limit: 1 })));
      await open(); // a few idle pooled connections
      proxy.severAll();
      // Each dead connection the pool hands out costs one attempt; the read still succeeds.
      expect(await storage.listPets({ limit: 1 })).toBeInstanceOf(Array);
      expect(await storage.getPet(1)).toBeUndefined();

      await open();
      proxy.severAll();
      // A write is not retried: had it reached the server, it might have committed.
      const write = await storage
        .createPet({ name: 'severed', categoryId: 1, status: 'sold' })
        .catch((e: unknown) => e);
      expect(write).toBeInstanceOf(StorageUnavailableError);
      expect(await countPets('severed')).toBe(0);
      // A read clears out the remaining dead connections; then writes go through again.
      expect(await storage.listPets({ limit: 1 })).toBeInstanceOf(Array);
      expect((await storage.createPet({ name: 'fresh', categoryId: 1, status: 'sold' })).name).toBe(
        'fresh',
      );
    } finally {
      await storage.close();
      await proxy.close();
    }
  });

  it('a connection killed mid-INSERT: StorageUnavailableError, and the row is not there', async () => {
    const applicationName = uniqueSchema('busy');
    const storage = createPostgresStorage({
      poolConfig: { connectionString: postgresUrl(), application_name: applicationName },
      schema,
    });
    const lock = await lockTable('pets');
    let pending: Promise<unknown> | undefined;
    try {
      pending = storage
        .createPet({ name: 'killed', categoryId: 1, status: 'sold' })
        .catch((e: unknown) => e);
      await expect.poll(() => terminate(applicationName), { timeout: 3000 }).toBeGreaterThan(0);
      expect(await pending).toBeInstanceOf(StorageUnavailableError);
    } finally {
      await lock.release();
    }
    expect(await countPets('killed')).toBe(0);
    // And the storage carries on.
    expect((await storage.createPet({ name: 'after', categoryId: 1, status: 'sold' })).name).toBe(
      'after',
    );
    await storage.close();
  });

  // The server's FATAL arrives in the same read as the end of the connection's startup: pg
  // dispatches it while the pool hands the connection out. Without an `error` listener in place
  // by then, the process dies of an uncaught exception (vitest reports it and fails the run).
  it('a connection terminated as the pool hands it out: StorageUnavailableError, no crash', async () => {
    const proxy = await startupHoldingProxy(...upstreamAddress());
    const applicationName = uniqueSchema('handout');
    const storage = createPostgresStorage({
      poolConfig: { connectionString: throughPort(proxy.port), application_name: applicationName },
      schema,
    });
    try {
      const pending = storage
        .createPet({ name: 'handed-out', categoryId: 1, status: 'sold' })
        .catch((e: unknown) => e);
      await terminateAtHandOut(proxy, applicationName);
      expect(await pending).toBeInstanceOf(StorageUnavailableError);
      expect(await countPets('handed-out')).toBe(0);
      // Later connections pass straight through: the storage carries on.
      expect((await storage.createPet({ name: 'next', categoryId: 1, status: 'sold' })).name).toBe(
        'next',
      );
    } finally {
      await storage.close();
      await proxy.close();
    }
  });

  it('migrate() on a host pool whose connection is terminated as it is handed out: rejects, no crash', async () => {
    const proxy = await startupHoldingProxy(...upstreamAddress());
    const applicationName = uniqueSchema('handout');
    const pool = hostPool({
      connectionString: throughPort(proxy.port),
      application_name: applicationName,
    });
    try {
      const pending = migrate({ pool, schema }).catch((e: unknown) => e);
      await terminateAtHandOut(proxy, applicationName);
      expect(isUnavailable(await pending)).toBe(true);
    } finally {
      await pool.end();
      await proxy.close();
    }
  });
});

describe('bugs stay bugs', () => {
  it('a missing table (schema never migrated) is not mapped to unavailable', async () => {
    const storage = createPostgresStorage({ pool: admin, schema: uniqueSchema('missing') });
    const error = await storage.getPet(1).catch((e: unknown) => e);
    expect(isStorageUnavailable(error)).toBe(false);
    expect(error).toMatchObject({ code: '42P01' });
    await storage.close();
  });

  it('classifies errors by code and pg message, not by guesswork', async () => {
    const syntax = await admin.query('SELEC 1').catch((e: unknown) => e);
    expect(syntax).toMatchObject({ code: '42601' });
    expect(isUnavailable(syntax)).toBe(false);
    const constraint = await admin
      .query(`INSERT INTO "${schema}".pets (name, category_id, status) VALUES ('x', 0, 'sold')`)
      .catch((e: unknown) => e);
    expect(constraint).toMatchObject({ code: '23514' });
    expect(isUnavailable(constraint)).toBe(false);

    const refused = await new pg.Client({
      connectionString: `postgres://x@127.0.0.1:${await refusedPort()}/x`,
    })
      .connect()
      .catch((e: unknown) => e);
    expect(isUnavailable(refused)).toBe(true);
    for (const code of ['57P01', '57P03', '08006', '53300', '57014']) {
      expect(isUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
    }
    expect(isUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isUnavailable(
        new Error('boom', { cause: Object.assign(new Error(), { code: 'ECONNRESET' }) }),
      ),
    ).toBe(true);
    expect(isUnavailable(new TypeError('x is not a function'))).toBe(false);
    expect(isUnavailable(undefined)).toBe(false);
  });
});

describe('close()', () => {
  it('a host pool stays open; the closed storage answers unavailable', async () => {
    const storage = createPostgresStorage({ pool: admin, schema });
    await storage.listPets({ limit: 1 });
    await storage.close();
    await expect(storage.getPet(1)).rejects.toBeInstanceOf(StorageUnavailableError);
    expect((await admin.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('an owned pool is ended', async () => {
    const applicationName = uniqueSchema('owned');
    const storage = createPostgresStorage({
      poolConfig: { connectionString: postgresUrl(), application_name: applicationName },
      schema,
    });
    await storage.listPets({ limit: 1 });
    const sessions = async () =>
      Number(
        (
          await admin.query<{ n: string }>(
            'SELECT count(*)::text AS n FROM pg_stat_activity WHERE application_name = $1',
            [applicationName],
          )
        ).rows[0]?.n,
      );
    expect(await sessions()).toBe(1);
    await storage.close();
    await expect.poll(sessions).toBe(0);
  });
});
