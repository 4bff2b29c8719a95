import { setTimeout as sleep } from 'node:timers/promises';
import {
  createTestDatabase,
  killStartedApps,
  type ListeningApp,
  startListening,
  type TcpProxy,
  type TestDatabase,
  tcpProxy,
} from '@petstore/service/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPetStoreClient, type Pet, type PetStatus, type RetryEvent } from '../src/index.js';
import { API_KEY, EXAMPLE_APPS, recordingFetch, recordOrders } from './support/services.js';
import { thrown } from './support/stub-server.js';

afterAll(killStartedApps);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

/** Resolves once another session waits for a lock: the first create, at its INSERT into the locked pets. */
async function blockedInsert(admin: pg.Client): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline) {
    // Inside a transaction the activity view is a snapshot: drop it to see the present.
    await admin.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'
          AND pid <> pg_backend_pid()`,
    );
    if ((rows[0]?.n ?? 0) > 0) return;
    await sleep(50);
  }
  throw new Error('the first create never waited on a lock');
}

describe.each(EXAMPLE_APPS)('the client against the $name example service', ({ dir }) => {
  let db: TestDatabase;
  let app: ListeningApp;

  beforeAll(async () => {
    db = await createTestDatabase(inject('postgresUrl'));
    app = await startListening(dir, { DATABASE_URL: db.url, API_KEYS: API_KEY });
  });

  afterAll(async () => {
    app?.signal('SIGTERM');
    await app?.exited;
    await db?.drop();
  });

  const client = (options: { retries?: number; fetch?: typeof fetch } = {}) =>
    createPetStoreClient({ baseUrl: app.url, apiKey: API_KEY, ...options });

  it('creates a pet, always with an Idempotency-Key: a random UUID per call unless given', async () => {
    const { fetch, attempts } = recordingFetch();
    const pets = client({ fetch });
    const first = await pets.createPet({ name: 'Rex', categoryId: 1 });
    expect(first).toEqual({
      id: expect.any(Number),
      name: 'Rex',
      categoryId: 1,
      status: 'available',
    });
    const second = await pets.createPet({ name: 'Rex', categoryId: 1 });
    expect(second.id).toBeGreaterThan(first.id);
    const [one, two] = attempts.map((attempt) => attempt.idempotencyKey);
    expect(one).toMatch(UUID);
    expect(two).toMatch(UUID);
    expect(two).not.toBe(one);

    // A key of your own: the same create twice is one pet (the service replays the first 201).
    const key = `order-4711-${Date.now()}`;
    const mine = await pets.createPet(
      { name: 'Tom', categoryId: 2, status: 'sold' },
      { idempotencyKey: key },
    );
    const again = await pets.createPet(
      { name: 'Tom', categoryId: 2, status: 'sold' },
      { idempotencyKey: key },
    );
    expect(again).toEqual(mine);
    expect(attempts.slice(2).map((attempt) => [attempt.idempotencyKey, attempt.outcome])).toEqual([
      [key, 201],
      [key, 201],
    ]);
    expect(await pets.getPet(mine.id)).toEqual(mine);
  });

  it('lists one page with the next cursor, and pets() walks 250 pets by status: none twice, none skipped', async () => {
    const pets = client();
    // 250 new pets, statuses in turn, created 10 at a time.
    const created: Pet[] = [];
    for (let batch = 0; batch < 25; batch++) {
      created.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, index) => {
            const n = batch * 10 + index;
            return pets.createPet({
              name: `walk-${n}`,
              categoryId: 1 + (n % 5),
              status: STATUSES[n % 3] ?? 'sold',
            });
          }),
        )),
      );
    }
    const all: Pet[] = [];
    for await (const pet of pets.pets({ limit: 100 })) all.push(pet);
    const ids = all.map((pet) => pet.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const pet of created) expect(ids).toContain(pet.id);

    for (const status of STATUSES) {
      const expected = all.filter((pet) => pet.status === status).map((pet) => pet.id);
      expect(expected.length).toBeGreaterThanOrEqual(83);
      const seen: number[] = [];
      let walked = 0;
      for await (const pet of pets.pets({ status, limit: 7 })) {
        expect(pet.status).toBe(status);
        seen.push(pet.id);
        // Pets created while paging come after the cursor: the walk neither repeats nor
        // skips any pet that existed when it started.
        if (++walked % 20 === 0)
          await pets.createPet({ name: `late-${walked}`, categoryId: 1, status });
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.slice(0, expected.length)).toEqual(expected);
    }

    const page = await pets.listPets({ status: 'pending', limit: 5 });
    expect(page.items).toHaveLength(5);
    expect(page.items.every((pet) => pet.status === 'pending')).toBe(true);
    expect(page.nextCursor).toEqual(expect.any(String));
    const next = await pets.listPets({ status: 'pending', limit: 5, cursor: page.nextCursor });
    expect(next.items[0]?.id).toBeGreaterThan(page.items[4]?.id ?? Number.POSITIVE_INFINITY);
    const everything = await pets.listPets({ limit: 100 });
    expect(everything.items).toHaveLength(100);
    // The last page has no next cursor.
    let cursor = everything.nextCursor;
    let last = everything;
    while (cursor !== undefined) {
      last = await pets.listPets({ limit: 100, cursor });
      cursor = last.nextCursor;
    }
    expect(last.nextCursor).toBeUndefined();
  }, 90_000);

  it('lists orders a page at a time, and orders() walks them all', async () => {
    await recordOrders(db.url, 12);
    const pets = client();
    const page = await pets.listOrders({ limit: 5 });
    expect(page.items.map((order) => order.id)).toEqual([1, 2, 3, 4, 5]);
    expect(page.items[0]).toEqual({
      id: 1,
      petId: 1,
      quantity: 1,
      shipDate: '2026-01-01T00:00:00.000Z',
      status: 'placed',
      complete: true,
    });
    const second = await pets.listOrders({ limit: 5, cursor: page.nextCursor });
    expect(second.items.map((order) => order.id)).toEqual([6, 7, 8, 9, 10]);
    const ids: number[] = [];
    for await (const order of pets.orders({ limit: 5 })) ids.push(order.id);
    expect(ids).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
  });

  it('throws PetStoreError with status, code, message, details and requestId', async () => {
    const wrongKey = createPetStoreClient({ baseUrl: app.url, apiKey: 'not-the-key-0123456789' });
    const unauthorized = await thrown(wrongKey.listPets());
    expect(unauthorized).toBeInstanceOf(Error);
    expect(unauthorized).toMatchObject({
      name: 'PetStoreError',
      status: 401,
      code: 'unauthorized',
      message: expect.any(String),
      details: [],
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    const { fetch, attempts } = recordingFetch();
    const pets = client({ fetch });
    // A body the type allows through a cast, as untyped callers send.
    const invalid = await thrown(pets.createPet({ name: '', categoryId: 0 }));
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(invalid.details.map((detail) => detail.path).sort()).toEqual(['categoryId', 'name']);

    const missing = await thrown(pets.getPet(987_654));
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    const badLimit = await thrown(pets.listPets({ limit: 500 }));
    expect(badLimit).toMatchObject({ status: 400, code: 'invalid_request' });
    // None of these is retried: one attempt each.
    expect(attempts).toHaveLength(3);
  });

  it('never retries a 422: the same key with another body fails at once', async () => {
    const { fetch, attempts } = recordingFetch();
    const retries: RetryEvent[] = [];
    const pets = createPetStoreClient({
      baseUrl: app.url,
      apiKey: API_KEY,
      fetch,
      onRetry: (event) => retries.push(event),
    });
    const key = `reused-${Date.now()}`;
    await pets.createPet({ name: 'First', categoryId: 1 }, { idempotencyKey: key });
    const reused = await thrown(
      pets.createPet({ name: 'Other', categoryId: 1 }, { idempotencyKey: key }),
    );
    expect(reused).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    expect(attempts.map((attempt) => attempt.outcome)).toEqual([201, 422]);
    expect(retries).toEqual([]);
  });

  it('retries a 409 idempotency_key_in_use after Retry-After, with the same key, and gets the first create', async () => {
    const key = `in-flight-${Date.now()}`;
    const newPet = { name: 'Slowpoke', categoryId: 3 };
    // An open transaction holds a pet under the id the sequence gives next: the first create
    // takes the key's lock, writes its claim, then waits at its pet's INSERT (the same id), in
    // flight for as long as this transaction lasts. A table lock would not do: the keyed create
    // is one statement on a direct connection, so it would wait before taking the key's lock.
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(
        `INSERT INTO petstore.pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
         SELECT nextval('petstore.pets_id_seq') + 1, 'held', 1, 'sold'`,
      );
      const first = client().createPet(newPet, { idempotencyKey: key });
      await blockedInsert(locker);

      const { fetch, attempts } = recordingFetch();
      const retries: RetryEvent[] = [];
      const pets = createPetStoreClient({
        baseUrl: app.url,
        apiKey: API_KEY,
        fetch,
        onRetry: (event) => {
          retries.push(event);
          // While the client waits, the held pet goes and the first create goes through.
          if (event.retry === 1) void locker.query('ROLLBACK');
        },
      });
      const pet = await pets.createPet(newPet, { idempotencyKey: key });
      expect(pet).toEqual(await first);
      expect(retries).toEqual([
        {
          operation: 'createPet',
          retry: 1,
          reason: 'idempotency_key_in_use',
          status: 409,
          waitMs: 1000,
          fromRetryAfter: true,
          idempotencyKey: key,
          requestId: expect.any(String),
        },
      ]);
      expect(attempts.map((attempt) => [attempt.idempotencyKey, attempt.outcome])).toEqual([
        [key, 409],
        [key, 201],
      ]);
    } finally {
      await locker.end();
    }
  });
});

describe('the client on a network error', () => {
  let app: ListeningApp;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const [express] = EXAMPLE_APPS;
    app = await startListening(express.dir, { API_KEYS: API_KEY });
    const target = new URL(app.origin);
    proxy = await tcpProxy({ host: target.hostname, port: Number(target.port) });
  });

  afterAll(async () => {
    await proxy?.close();
    app?.signal('SIGTERM');
    await app?.exited;
  });

  const baseUrl = () => `http://127.0.0.1:${proxy.port}/v1`;

  it('retries a create with the same key after backoff, once the service is reachable again', async () => {
    await proxy.cut();
    const { fetch, attempts } = recordingFetch();
    const retries: RetryEvent[] = [];
    const pets = createPetStoreClient({
      baseUrl: baseUrl(),
      apiKey: API_KEY,
      retries: 5,
      fetch,
      onRetry: (event) => {
        retries.push(event);
        if (event.retry === 2) void proxy.restore();
      },
    });
    const pet = await pets.createPet({ name: 'Lost-and-found', categoryId: 1 });
    expect(pet.name).toBe('Lost-and-found');
    expect(retries.map((event) => [event.reason, event.status, event.fromRetryAfter])).toEqual([
      ['network_error', 0, false],
      ['network_error', 0, false],
    ]);
    // Exponential backoff with jitter: 100-200 ms, then 200-400 ms.
    expect(retries[0]?.waitMs).toBeGreaterThanOrEqual(100);
    expect(retries[0]?.waitMs).toBeLessThanOrEqual(200);
    expect(retries[1]?.waitMs).toBeGreaterThanOrEqual(200);
    expect(retries[1]?.waitMs).toBeLessThanOrEqual(400);
    const keys = new Set(attempts.map((attempt) => attempt.idempotencyKey));
    expect(keys.size).toBe(1);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual([
      expect.any(String),
      expect.any(String),
      201,
    ]);
    const named: Pet[] = [];
    for await (const one of pets.pets()) if (one.name === 'Lost-and-found') named.push(one);
    expect(named).toEqual([pet]);
  });

  it('gives up after `retries` with a network_error PetStoreError', async () => {
    await proxy.cut();
    try {
      const { fetch, attempts } = recordingFetch();
      const pets = createPetStoreClient({ baseUrl: baseUrl(), apiKey: API_KEY, retries: 2, fetch });
      const error = await thrown(pets.listPets());
      expect(error).toMatchObject({ status: 0, code: 'network_error', requestId: undefined });
      expect(error.cause).toBeInstanceOf(Error);
      expect(attempts).toHaveLength(3);
    } finally {
      await proxy.restore();
    }
  });
});
