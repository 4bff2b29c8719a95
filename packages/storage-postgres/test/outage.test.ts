import { setTimeout as sleep } from 'node:timers/promises';
import { sendHttp, type WireResponse } from '@petstore/conformance';
import {
  type PgBouncer,
  type PostgresServer,
  startPgBouncer,
  startPostgresServer,
} from '@petstore/test-postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrate } from '../src/index.js';
import {
  listAllPetNames,
  queryDirect,
  type ServedApi,
  serveApi,
  waitFor,
} from './support/outage.js';

// The outage, for real: a PostgreSQL of its own (stopped and started mid-test, same data dir
// and port), the API served by Express on 127.0.0.1, and creates under concurrent load.

const API_KEY = 'outage-test-key-0123';
const WORKERS = 8;
const MAX_REQUESTS_PER_WORKER = 500;
const REQUEST_TIMEOUT_MS = 8000; // connectionTimeoutMillis + queryTimeoutMillis + slack: past this, a hang
const ACKS_BEFORE_STOP = 150;
const UNAVAILABLE_WHILE_DOWN = 40;
const MIN_DOWN_MS = 2000;
const ACKS_AFTER_RECOVERY = 150;

interface Outcome {
  readonly name: string;
  readonly status: number | 'hang' | 'network error';
  readonly at: number;
  readonly response?: WireResponse;
}

const pgbouncerBin = inject('pgbouncerBin');

describe.each([
  { via: 'direct', skip: false },
  // Skipped, and said so once by the global setup, when the run has no pgbouncer binary.
  { via: 'PgBouncer', skip: pgbouncerBin === '' },
] as const)('outage ($via)', ({ via, skip }) => {
  if (skip) {
    it.skip(`${via}: needs a pgbouncer binary`, () => undefined);
    return;
  }
  let db: PostgresServer;
  let api: ServedApi;
  let origin: string;
  let poolErrors = 0;

  let bouncer: PgBouncer | undefined;

  beforeAll(async () => {
    // Durable settings (fsync on): acknowledged must mean on disk, as in production.
    db = await startPostgresServer({ fast: false });
    // Through PgBouncer, the service (and its migration) only ever talk to the pooler, which
    // stays up while PostgreSQL behind it stops and starts.
    bouncer =
      via === 'PgBouncer'
        ? await startPgBouncer({ bin: pgbouncerBin, server: db.connectionString })
        : undefined;
    const serviceUrl = bouncer?.connectionString ?? db.connectionString;
    await migrate({ connectionString: serviceUrl });
    api = await serveApi({
      connectionString: serviceUrl,
      apiKey: API_KEY,
      onPoolError: () => {
        poolErrors += 1;
      },
    });
    origin = api.origin;
  });

  afterAll(async () => {
    await api?.close();
    await bouncer?.stop();
    await db?.destroy();
  });

  const withTimeout = <T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> =>
    Promise.race([work, sleep(ms, 'timeout' as const)]);

  async function createPet(name: string): Promise<Outcome> {
    const sent = withTimeout(
      sendHttp(origin, {
        method: 'POST',
        path: '/v1/pets',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, categoryId: 1 }),
      }),
      REQUEST_TIMEOUT_MS,
    ).catch(() => 'network error' as const);
    const response = await sent;
    const at = performance.now();
    if (response === 'timeout') return { name, status: 'hang', at };
    if (response === 'network error') return { name, status: 'network error', at };
    return { name, status: response.status, at, response };
  }

  it(`${via}: stopping PostgreSQL mid-load gives 503s, never 500 or a hang; it recovers alone and loses or invents no pet`, async () => {
    const outcomes: Outcome[] = [];
    let done = false;
    const testDeadline = performance.now() + 60_000;
    const count = (predicate: (o: Outcome) => boolean) => outcomes.filter(predicate).length;

    const worker = async (w: number) => {
      for (
        let i = 0;
        i < MAX_REQUESTS_PER_WORKER && !done && performance.now() < testDeadline;
        i += 1
      ) {
        const outcome = await createPet(`w${w}-${i}`);
        outcomes.push(outcome);
        // A polite client backs off a little on 503 (bounded loop either way).
        if (outcome.status === 503) await sleep(25);
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
    let stoppedAt = 0;
    let startedAt = 0;
    try {
      await waitFor(
        'acks before stop',
        () => count((o) => o.status === 201) >= ACKS_BEFORE_STOP,
        20_000,
      );
      stoppedAt = performance.now();
      await db.stop();
      await waitFor(
        '503s while down',
        () =>
          count((o) => o.status === 503 && o.at > stoppedAt) >= UNAVAILABLE_WHILE_DOWN &&
          performance.now() - stoppedAt >= MIN_DOWN_MS,
        10_000,
      );
      await db.start();
      startedAt = performance.now();
      await waitFor(
        'first 201 after restart',
        () => count((o) => o.status === 201 && o.at > startedAt) > 0,
        15_000,
      );
      await waitFor(
        'acks after recovery',
        () => count((o) => o.status === 201 && o.at > startedAt) >= ACKS_AFTER_RECOVERY,
        15_000,
      );
    } finally {
      done = true;
      await Promise.all(workers);
    }

    // Every answer was a 201 or a proper 503: no 500, no hang, no dropped connection.
    const byStatus = new Map<Outcome['status'], number>();
    for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
    expect([...byStatus.keys()].sort()).toEqual([201, 503]);
    for (const o of outcomes.filter((x) => x.status === 503)) {
      expect(o.response?.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(JSON.parse(o.response?.body ?? '{}')).toMatchObject({
        code: 'service_unavailable',
        status: 503,
      });
    }

    // What the clients were told, against what PostgreSQL holds (read directly).
    const acknowledged = new Map<string, number>();
    for (const o of outcomes.filter((x) => x.status === 201)) {
      const pet = JSON.parse(o.response?.body ?? '{}') as { id: number; name: string };
      expect(pet.name).toBe(o.name);
      acknowledged.set(o.name, pet.id);
    }
    const stored = await queryDirect<{ id: string; name: string }>(
      db.connectionString,
      'SELECT id::text AS id, name FROM petstore.pets ORDER BY pets.id',
    );
    const storedNames = stored.map((row) => row.name);
    expect(new Set(storedNames).size, 'no pet is stored twice').toBe(storedNames.length);
    expect(
      stored.filter((row) => !acknowledged.has(row.name)).map((row) => row.name),
      'no pet exists that was not acknowledged',
    ).toEqual([]);
    expect(
      [...acknowledged.keys()].filter((name) => !storedNames.includes(name)),
      'every acknowledged pet is stored',
    ).toEqual([]);
    for (const row of stored) expect(Number(row.id)).toBe(acknowledged.get(row.name));

    // And readable through the API, by walking the pages.
    const listed = await listAllPetNames(origin, API_KEY);
    expect(listed).toEqual(storedNames);

    const firstAckAfterRestart = Math.min(
      ...outcomes.filter((o) => o.status === 201 && o.at > startedAt).map((o) => o.at),
    );
    const summary = {
      requests: outcomes.length,
      acknowledged: acknowledged.size,
      unavailable503: byStatus.get(503) ?? 0,
      stored: stored.length,
      poolErrors,
      downForSeconds: Number(((startedAt - stoppedAt) / 1000).toFixed(2)),
      recoveredSecondsAfterStart: Number(((firstAckAfterRestart - startedAt) / 1000).toFixed(3)),
    };
    console.info(`outage test (${via}): ${JSON.stringify(summary)}`);
    expect(summary.unavailable503).toBeGreaterThanOrEqual(UNAVAILABLE_WHILE_DOWN);
  }, 90_000);
});
