import { StorageUnavailableError } from '@petstore/core';
import { dropSchema, hostPool, postgresUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';

// What the storage contract cannot see from outside: claims held across processes (here, two
// storages with their own pools) and atomicity when the connection dies mid-transaction.
// Each form of the keyed create (see StatementForms): the one statement a direct connection
// prepares, and the call of create_pet_once sent unnamed. A schema each, as keys repeat.
const admin = hostPool();
const schemaOf = { auto: uniqueSchema('idem'), off: uniqueSchema('idem_off') } as const;
// The schema of the forms' describe now running (set by its beforeAll).
let schema: string = schemaOf.auto;
beforeAll(async () => {
  for (const each of Object.values(schemaOf)) await migrate({ pool: admin, schema: each });
});
afterAll(async () => {
  for (const each of Object.values(schemaOf)) await dropSchema(admin, each);
  await admin.end();
});

const claim = (key: string) => ({ scope: 'scope', key, fingerprint: 'f', retentionMs: 60_000 });
const input = (name: string) => ({ name, categoryId: 1, status: 'available' as const });

const rows = async (sql: string, values: unknown[] = []): Promise<number> =>
  Number((await admin.query<{ n: string }>(sql, values)).rows[0]?.n);
const petsNamed = (name: string) =>
  rows(`SELECT count(*)::text AS n FROM "${schema}".pets WHERE name = $1`, [name]);
const claimsFor = (key: string) =>
  rows(`SELECT count(*)::text AS n FROM "${schema}".idempotency_keys WHERE key = $1`, [key]);

/**
 * The create retried as a client would: PostgreSQL sends a failed statement's error (or a
 * killed backend's) before it ends the transaction and frees the claim's advisory lock, so a
 * retry on another connection in that instant reads in_flight (a client's 409, worth retrying;
 * seen once on a loaded CI machine). Any other answer ends it: a kept claim would be found.
 */
async function retryWhileInFlight(
  storage: ReturnType<typeof createPostgresStorage>,
  key: string,
): Promise<string> {
  let kind = 'in_flight';
  for (let attempt = 0; kind === 'in_flight' && attempt < 50; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    ({ kind } = await storage.createPetIdempotent(input(key), claim(key)));
  }
  return kind;
}

/** Holds an EXCLUSIVE lock on pets (as a migration might): plain reads go on, an INSERT waits. */
async function lockPets(): Promise<{ release(): Promise<void> }> {
  const client = await admin.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE "${schema}".pets IN EXCLUSIVE MODE`);
  return {
    async release() {
      await client.query('COMMIT');
      client.release();
    },
  };
}

/** The keyed create of `key` while pets is locked, the lock released once it settled: its outcome. */
async function createWhilePetsLocked(
  storage: ReturnType<typeof createPostgresStorage>,
  key: string,
): Promise<unknown> {
  const lock = await lockPets();
  try {
    return await storage.createPetIdempotent(input(key), claim(key)).catch((e: unknown) => e);
  } finally {
    await lock.release();
  }
}

/**
 * Another transaction's claim for `key` (and its pet), inserted and left open: a keyed create
 * of the same key waits on it inside its statement, until `end` commits or rolls it back.
 * Nothing of ours writes a claim without its advisory lock; this stands for the moment between
 * a claim's commit and another statement's snapshot.
 */
async function openClaim(
  key: string,
  fingerprint = 'f',
): Promise<{
  pet: { id: number };
  end(how: 'COMMIT' | 'ROLLBACK'): Promise<void>;
}> {
  const client = await admin.connect();
  await client.query('BEGIN');
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO "${schema}".pets (name, category_id, status) VALUES ('open', 1, 'available') RETURNING id::text`,
  );
  const id = Number(inserted.rows[0]?.id);
  await client.query(
    `INSERT INTO "${schema}".idempotency_keys (scope, key, fingerprint, pet_id, expires_at)
     VALUES ('scope', $1, $2, $3, now() + interval '1 hour')`,
    [key, fingerprint, id],
  );
  return {
    pet: { id },
    async end(how) {
      await client.query(how);
      client.release();
    },
  };
}

const waitingOn = (applicationName: string) =>
  rows(
    `SELECT count(*)::text AS n FROM pg_stat_activity
     WHERE application_name = $1 AND wait_event_type = 'Lock'`,
    [applicationName],
  );

describe.each(['auto', 'off'] as const)(
  'createPetIdempotent on PostgreSQL (namedStatements %s)',
  (namedStatements) => {
    beforeAll(() => {
      schema = schemaOf[namedStatements];
    });

    // What holds the first create mid-statement: another process's open claim (its row lock), or,
    // for the function, a table lock as a migration takes (the first waits at its INSERT while
    // the second only reads). The one prepared statement writes pets, so it takes its table lock
    // before it starts: under that lock every keyed create waits (the next test).
    it.each([
      {
        holder: 'an open claim of another process',
        key: 'held',
        hold: async (key: string) => {
          const other = await openClaim(key);
          return { release: () => other.end('ROLLBACK') };
        },
      },
      ...(namedStatements === 'off'
        ? [{ holder: 'a table lock', key: 'locked', hold: () => lockPets() }]
        : []),
    ])(
      'in_flight at once while $holder holds the first create, which then replays',
      async ({ key, hold }) => {
        const first = createPostgresStorage({
          namedStatements,
          poolConfig: { connectionString: postgresUrl(), application_name: `idem-${key}` },
          schema,
        });
        const second = createPostgresStorage({
          namedStatements,
          connectionString: postgresUrl(),
          schema,
        });
        const held = await hold(key);
        let pending: ReturnType<typeof first.createPetIdempotent> | undefined;
        try {
          pending = first.createPetIdempotent(input(key), claim(key));
          await expect.poll(() => waitingOn(`idem-${key}`)).toBe(1);
          const started = Date.now();
          expect(await second.createPetIdempotent(input(key), claim(key))).toEqual({
            kind: 'in_flight',
          });
          expect(Date.now() - started).toBeLessThan(1000);
        } finally {
          await held.release();
        }
        const created = await pending;
        expect(created.kind).toBe('created');
        expect(await second.createPetIdempotent(input(key), claim(key))).toEqual({
          kind: 'replayed',
          pet: created.kind === 'created' ? created.pet : undefined,
        });
        expect(await petsNamed(key)).toBe(1);
        await Promise.all([first.close(), second.close()]);
      },
    );

    it.runIf(namedStatements === 'auto')(
      'under a table lock on pets, two creates of one key both wait, then one pet: created, then replayed or in_flight',
      async () => {
        const key = 'locked';
        const storage = () =>
          createPostgresStorage({
            namedStatements,
            poolConfig: { connectionString: postgresUrl(), application_name: `idem-${key}` },
            schema,
          });
        const [first, second] = [storage(), storage()];
        const held = await lockPets();
        let answers: Promise<Awaited<ReturnType<typeof first.createPetIdempotent>>[]>;
        try {
          answers = Promise.all([
            first.createPetIdempotent(input(key), claim(key)),
            second.createPetIdempotent(input(key), claim(key)),
          ]);
          await expect.poll(() => waitingOn(`idem-${key}`)).toBe(2);
        } finally {
          await held.release();
        }
        const kinds = (await answers).map((answer) => answer.kind).sort();
        expect(['created,in_flight', 'created,replayed']).toContain(kinds.join());
        expect(await petsNamed(key)).toBe(1);
        await Promise.all([first.close(), second.close()]);
      },
    );

    // A claim committed after the statement's snapshot, before its lock: never overwritten.
    it.each([
      { body: 'the same body', print: 'f', expected: 'replayed' },
      { body: 'another body', print: 'another', expected: 'fingerprint_mismatch' },
    ])(
      'a claim committed after the statement saw none, with $body: $expected',
      async ({ print, expected }) => {
        const key = `raced-${print}`;
        const storage = createPostgresStorage({
          namedStatements,
          poolConfig: { connectionString: postgresUrl(), application_name: key },
          schema,
        });
        const other = await openClaim(key, print);
        let pending: ReturnType<typeof storage.createPetIdempotent> | undefined;
        try {
          pending = storage.createPetIdempotent(input(key), claim(key));
          // Its snapshot has no claim and it holds the lock; its insert waits on the open one.
          await expect.poll(() => waitingOn(key)).toBe(1);
        } finally {
          await other.end('COMMIT');
        }
        const stored = await pending;
        expect(stored.kind).toBe(expected);
        if (stored.kind === 'replayed') expect(stored.pet.id).toBe(other.pet.id);
        expect(await petsNamed(key)).toBe(0);
        expect(await claimsFor(key)).toBe(1);
        await storage.close();
      },
    );

    it('the connection dies mid-transaction: StorageUnavailableError, and neither pet nor claim is stored', async () => {
      const storage = createPostgresStorage({
        namedStatements,
        poolConfig: { connectionString: postgresUrl(), application_name: 'idem-killed' },
        schema,
      });
      const lock = await lockPets();
      let outcome: unknown;
      try {
        const pending = storage
          .createPetIdempotent(input('killed'), claim('killed'))
          .catch((e: unknown) => e);
        await expect.poll(() => waitingOn('idem-killed')).toBe(1);
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'idem-killed'",
        );
        outcome = await pending;
      } finally {
        await lock.release();
      }
      expect(outcome).toBeInstanceOf(StorageUnavailableError);
      expect(await petsNamed('killed')).toBe(0);
      expect(await claimsFor('killed')).toBe(0);
      // The key is free: the retry creates the pet.
      expect(await retryWhileInFlight(storage, 'killed')).toBe('created');
      await storage.close();
    });

    it('a transaction stuck past queryTimeoutMillis is rolled back and reported unavailable', async () => {
      const storage = createPostgresStorage({
        namedStatements,
        connectionString: postgresUrl(),
        schema,
        queryTimeoutMillis: 300,
      });
      const outcome = await createWhilePetsLocked(storage, 'slow');
      expect(outcome).toBeInstanceOf(StorageUnavailableError);
      expect(await petsNamed('slow')).toBe(0);
      expect(await claimsFor('slow')).toBe(0);
      await storage.close();
    });

    it('on a host pool without statement_timeout, a stuck transaction is abandoned and never commits', async () => {
      const pool = hostPool({ application_name: 'idem-host' });
      const storage = createPostgresStorage({
        namedStatements,
        pool,
        schema,
        queryTimeoutMillis: 300,
      });
      const started = Date.now();
      const outcome = await createWhilePetsLocked(storage, 'abandoned');
      expect(outcome).toBeInstanceOf(StorageUnavailableError);
      expect(Date.now() - started).toBeLessThan(3000);
      // The INSERT may still run once the lock is gone, but its transaction never commits.
      await expect.poll(() => waitingOn('idem-host')).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await petsNamed('abandoned')).toBe(0);
      expect(await claimsFor('abandoned')).toBe(0);
      await storage.close();
      await pool.end();
    });

    it('expired claims are purged off the request path, every purgeIntervalMillis', async () => {
      const oldClaims = () =>
        rows(`SELECT count(*)::text AS n FROM "${schema}".idempotency_keys WHERE key LIKE 'old-%'`);
      const creating = createPostgresStorage({
        namedStatements,
        pool: admin,
        schema,
        purgeIntervalMillis: 0,
      });
      for (let n = 0; n < 5; n += 1) {
        await creating.createPetIdempotent(input(`old-${n}`), {
          ...claim(`old-${n}`),
          retentionMs: 1,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      // A create does no housekeeping: the expired claims are still there after it.
      await creating.createPetIdempotent(input('new'), claim('new'));
      expect(await oldClaims()).toBe(5);
      await creating.close();

      const purging = createPostgresStorage({
        namedStatements,
        pool: admin,
        schema,
        purgeIntervalMillis: 50,
      });
      const deadline = Date.now() + 5000;
      while ((await oldClaims()) > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await oldClaims()).toBe(0);
      // Live claims stay.
      expect(await claimsFor('new')).toBe(1);
      await purging.close();
    });

    it('refuses a purge interval that is not a whole number of milliseconds', () => {
      expect(() =>
        createPostgresStorage({ namedStatements, pool: admin, schema, purgeIntervalMillis: -1 }),
      ).toThrow('purgeIntervalMillis must be a positive integer');
    });

    it('replays of a stored claim never answer in_flight, however many arrive at once', async () => {
      const storage = createPostgresStorage({
        namedStatements,
        poolConfig: { connectionString: postgresUrl(), max: 10 },
        schema,
      });
      const first = await storage.createPetIdempotent(input('stored'), claim('stored'));
      expect(first.kind).toBe('created');
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          storage.createPetIdempotent(input('stored'), claim('stored')),
        ),
      );
      expect(answers.map((answer) => answer.kind)).toEqual(Array(50).fill('replayed'));
      expect(await petsNamed('stored')).toBe(1);
      await storage.close();
    });

    it('a create refused by the database frees its claim with it: the retry creates', async () => {
      const storage = createPostgresStorage({ namedStatements, pool: admin, schema });
      // A status the CHECK constraint refuses: a statement error on a healthy connection.
      const refused = storage.createPetIdempotent(
        { name: 'refused', categoryId: 1, status: 'lost' as 'sold' },
        claim('refused'),
      );
      await expect(refused).rejects.toThrow();
      expect(await claimsFor('refused')).toBe(0);
      expect(await retryWhileInFlight(storage, 'refused')).toBe('created');
      await storage.close();
    });
  },
);
