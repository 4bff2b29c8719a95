import { killStartedApps, type ListeningApp, startListening } from '@petstore/service/testing';
import { type PostgresServer, startPostgresServer } from '@petstore/test-postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPetStoreClient, type Pet, type RetryEvent } from '../src/index.js';
import { API_KEY, EXAMPLE_APPS, recordingFetch } from './support/services.js';

// A create retried across a real PostgreSQL outage: the server is stopped (fast shutdown, the
// service's connections cut) and started again on the same data directory and port while the
// client retries. The end state must be exactly one pet for the one logical create.

let db: PostgresServer;
let app: ListeningApp;

beforeAll(async () => {
  // Durable settings: what was acknowledged must survive the restart, as in production.
  db = await startPostgresServer({ fast: false });
  const [express] = EXAMPLE_APPS;
  app = await startListening(express.dir, {
    DATABASE_URL: db.connectionString,
    API_KEYS: API_KEY,
  });
});

afterAll(async () => {
  killStartedApps();
  await db?.destroy();
});

async function petsNamed(name: string): Promise<number> {
  const client = new pg.Client({ connectionString: db.connectionString });
  await client.connect();
  try {
    const result = await client.query(
      'SELECT count(*)::int AS n FROM petstore.pets WHERE name = $1',
      [name],
    );
    return (result.rows[0] as { n: number }).n;
  } finally {
    await client.end();
  }
}

it('a create retried across a PostgreSQL stop and start yields exactly one pet', async () => {
  const { fetch, attempts } = recordingFetch();
  const retries: RetryEvent[] = [];
  let restarted: Promise<void> | undefined;
  const pets = createPetStoreClient({
    baseUrl: app.url,
    apiKey: API_KEY,
    retries: 20, // the database may take a while to start on a busy machine
    fetch,
    onRetry: (event) => {
      retries.push(event);
      // Two refusals seen: bring the database back while the client waits.
      if (event.retry === 2) restarted = db.start();
    },
  });
  // Warm: the service's pool holds live connections when the outage begins.
  await pets.createPet({ name: 'before-the-outage', categoryId: 1 });
  attempts.length = 0;

  await db.stop();
  const started = performance.now();
  const pet: Pet = await pets.createPet(
    { name: 'through-the-outage', categoryId: 2, status: 'pending' },
    { idempotencyKey: 'outage-create-1' },
  );
  await restarted;

  const timeline = attempts.map((attempt) => ({
    atMs: Math.round(attempt.at - started),
    outcome: attempt.outcome,
  }));
  const waits = retries.map(({ retry, reason, status, waitMs, fromRetryAfter }) => ({
    retry,
    reason,
    status,
    waitMs: Math.round(waitMs),
    fromRetryAfter,
  }));
  // For the record (the closing note quotes these).
  console.log('attempts across the outage:', JSON.stringify(timeline));
  console.log('waits between them:', JSON.stringify(waits));

  expect(pet).toEqual({
    id: expect.any(Number),
    name: 'through-the-outage',
    categoryId: 2,
    status: 'pending',
  });
  // Every attempt carried the same key; all but the last were refused with 503.
  expect(new Set(attempts.map((attempt) => attempt.idempotencyKey))).toEqual(
    new Set(['outage-create-1']),
  );
  expect(attempts.at(-1)?.outcome).toBe(201);
  expect(attempts.slice(0, -1).every((attempt) => attempt.outcome === 503)).toBe(true);
  expect(attempts.length).toBeGreaterThanOrEqual(3);
  expect(retries.every((event) => event.reason === 'service_unavailable')).toBe(true);
  // The service's Retry-After: 1 set every wait.
  expect(retries.every((event) => event.fromRetryAfter && event.waitMs === 1000)).toBe(true);

  // Exactly one pet, seen through the API and in the database itself.
  const named: Pet[] = [];
  for await (const one of pets.pets({ status: 'pending' })) {
    if (one.name === 'through-the-outage') named.push(one);
  }
  expect(named).toEqual([pet]);
  expect(await petsNamed('through-the-outage')).toBe(1);

  // The same logical create once more (say, after a crash): the first answer, no second pet.
  const again = await pets.createPet(
    { name: 'through-the-outage', categoryId: 2, status: 'pending' },
    { idempotencyKey: 'outage-create-1' },
  );
  expect(again).toEqual(pet);
  expect(await petsNamed('through-the-outage')).toBe(1);
}, 90_000);
