import { dropSchema, hostPool, postgresUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';

// Each `query` call of a pg client is one message to the server and one answer back: one round
// trip (the extended protocol pipelines Parse/Bind/Execute/Sync in one write as well). The
// pool's clients are pg's own; each connection's `query` is counted on its way through.
let sent = 0;
function counted(pool: pg.Pool): pg.Pool {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      sent += 1;
      return query(...args);
    }) as typeof client.query;
  });
  return pool;
}

const admin = hostPool();
const schema = uniqueSchema('trips');
const pool = counted(new pg.Pool({ connectionString: postgresUrl(), max: 2 }));
const storage = createPostgresStorage({ pool, schema });
beforeAll(async () => {
  await migrate({ pool: admin, schema });
  // A warm connection: what is counted is the work, not connecting.
  await storage.listPets({ limit: 1 });
});
afterAll(async () => {
  await storage.close();
  await pool.end();
  await dropSchema(admin, schema);
  await admin.end();
});

async function roundTrips(work: () => Promise<unknown>): Promise<number> {
  const before = sent;
  await work();
  return sent - before;
}

const claim = (key: string, fingerprint = 'f') => ({
  scope: 'scope',
  key,
  fingerprint,
  retentionMs: 60_000,
});
const pet = (name: string) => ({ name, categoryId: 1, status: 'available' as const });

describe('round trips to PostgreSQL', () => {
  it('a create is one, with its statement timeout', async () => {
    expect(await roundTrips(() => storage.createPet(pet('one')))).toBe(1);
    expect(
      await roundTrips(() =>
        storage.createOrder({
          petId: 1,
          quantity: 1,
          shipDate: '2026-11-24T12:00:00.000Z',
          status: 'placed',
          complete: false,
        }),
      ),
    ).toBe(1);
  });

  it('a keyed create is one, and so are its replay and a mismatch', async () => {
    expect(await roundTrips(() => storage.createPetIdempotent(pet('k'), claim('k1')))).toBe(1);
    expect(await roundTrips(() => storage.createPetIdempotent(pet('k'), claim('k1')))).toBe(1);
    expect(
      await roundTrips(() => storage.createPetIdempotent(pet('k'), claim('k1', 'other'))),
    ).toBe(1);
  });

  it('a read is one', async () => {
    expect(await roundTrips(() => storage.listPets({ limit: 5 }))).toBe(1);
    expect(await roundTrips(() => storage.getPet(1))).toBe(1);
  });
});

const count = async (table: string): Promise<number> =>
  Number(
    (await admin.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${schema}".${table}`))
      .rows[0]?.n,
  );

/** Text a name may hold: any Unicode but NUL, with the characters SQL cares about made likely. */
const hostileName = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "'",
        "''",
        '\\',
        "\\'",
        '$1',
        '$$',
        '"',
        ';',
        '--',
        '/*',
        "E'",
        '\u2028',
        '😀',
      ),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join('').replaceAll('\u0000', ''))
  .filter((name) => name.length > 0);

describe('names round-trip unchanged and never change the statement', () => {
  it('through createPet and createPetIdempotent (fast-check, real PostgreSQL)', async () => {
    let keyed = 0;
    await fc.assert(
      fc.asyncProperty(hostileName, async (name) => {
        const pets = await count('pets');
        const created = await storage.createPet(pet(name));
        expect(created.name).toBe(name);
        expect((await storage.getPet(created.id))?.name).toBe(name);
        keyed += 1;
        const result = await storage.createPetIdempotent(pet(name), claim(`${name}#${keyed}`));
        expect(result.kind === 'created' && result.pet.name).toBe(name);
        // Exactly the two pets, nothing else run.
        expect(await count('pets')).toBe(pets + 2);
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it('a 256-character name of quotes, backslashes and $1 round-trips', async () => {
    const name = `'\\$1";--`.repeat(32);
    expect(name).toHaveLength(256);
    const created = await storage.createPet(pet(name));
    expect((await storage.getPet(created.id))?.name).toBe(name);
  });

  it('a 10,000-character one is refused by the table as a whole: no pet, no other statement', async () => {
    const pets = await count('pets');
    const name = `'\\$1;--${"'".repeat(9_993)}`;
    expect(name).toHaveLength(10_000);
    await expect(storage.createPet(pet(name))).rejects.toThrow(/pets_name_check|violates check/);
    expect(await count('pets')).toBe(pets);
  });

  it('NUL is refused before anything is sent', async () => {
    const pets = await count('pets');
    await expect(storage.createPet(pet('Re\u0000x'))).rejects.toThrow(TypeError);
    expect(await count('pets')).toBe(pets);
  });
});
