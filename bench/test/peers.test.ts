import type { AddressInfo } from 'node:net';
import { runConformance, sendHttp, type WireRequest } from '@petstore/conformance';
import { hostPool, pgbouncerUrl, postgresUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll, describe, expect, test } from 'vitest';
import {
  API_KEY,
  AUTHORIZATION,
  CREATE_BODY,
  CREATE_PATH,
  LIST_PATH,
  LIST_SEED_SIZE,
  seedPet,
} from '../src/fixtures.js';
import {
  createPgSchema,
  createPgStore,
  type RunningPeer,
  seedPgPeer,
  startNodeMemoryPeer,
  startNodePgPeer,
} from '../src/peers/index.js';
import { benchStore, oursNodeServer, seededMemoryStorage } from '../src/servers/ours.js';
import { memoryStores, peerHost, pgStores } from './peer-host.js';

const VERIFY = 'the peers take a list of API keys; verify(token) is the library’s plug-in';
const HOOKS = 'the peers have no hooks (onResponse, onDeprecatedCall, onError)';
const SHEDDING = 'turns on load shedding, which the peers do not have';
const ABORT = 'checks verify(token) and onResponse; no answer, nothing stored: tested below';

/** The cases that configure what only the library has: every other case must pass. */
const KNOWN_DIFFERENCES: Readonly<Record<string, string>> = {
  'auth: a verify(token) function accepts its tokens': VERIFY,
  'auth: a verify(token) function rejects other tokens': VERIFY,
  'auth: a verify(token) that throws is 503 service_unavailable with Retry-After, before any route or input check':
    VERIFY,
  'auth: a verify(token) that rejects is 503 service_unavailable with Retry-After, before any route or input check':
    VERIFY,
  'auth: a verify(token) that never settles is 503 service_unavailable with Retry-After, before any route or input check':
    VERIFY,
  'auth: a verify(token) that answers within verifyTimeoutMs is waited for': VERIFY,
  'auth: a listed key still works while verify(token) is failing': VERIFY,
  'auth: no token is 401 even while verify(token) is failing': VERIFY,
  'keys: a principal id from verify(token) scopes Idempotency-Keys': VERIFY,
  'hooks: onResponse sees method, route template, status, duration and request id': HOOKS,
  'hooks: onDeprecatedCall is told of every getPet call, and of nothing else': HOOKS,
  'hooks: onError receives the unexpected error; the client sees only internal_error': HOOKS,
  'hooks: a throwing hook is reported to onError with its request': HOOKS,
  'hooks: a throwing onResponse hook does not change the answer': HOOKS,
  'openapi: every documented error status of every operation uses the Error schema': SHEDDING,
  'aborts: a client that hangs up mid-body (chunked) gets no answer and is no error': ABORT,
  'aborts: a client that hangs up mid-body (Content-Length) gets no answer and is no error': ABORT,
};

const admin = hostPool();
afterAll(() => admin.end());

runConformance({
  name: 'hand-written node:http peer over memory',
  host: peerHost(memoryStores),
  knownDifferences: KNOWN_DIFFERENCES,
});

runConformance({
  name: 'hand-written node:http peer over PostgreSQL',
  host: peerHost(pgStores(admin, () => uniqueSchema('peer'))),
  knownDifferences: KNOWN_DIFFERENCES,
});

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const get = (path: string): WireRequest => ({
  method: 'GET',
  path,
  headers: { authorization: AUTHORIZATION },
});
const create = (headers: Record<string, string> = {}): WireRequest => ({
  method: 'POST',
  path: CREATE_PATH,
  headers: { authorization: AUTHORIZATION, 'content-type': 'application/json', ...headers },
  body: CREATE_BODY,
});
const BENCH_PETS = Array.from({ length: LIST_SEED_SIZE }, (_, i) => seedPet(i + 1));

/** A peer on PostgreSQL as the bench starts one: seeded by `seedPgPeer`, its own pool. */
async function benchPgPeer(connectionString = postgresUrl(), namedStatements = true) {
  const schema = uniqueSchema('peer_bench');
  await seedPgPeer(postgresUrl(), schema, LIST_SEED_SIZE);
  const peer = await startNodePgPeer({
    connectionString,
    schema,
    apiKeys: [API_KEY],
    poolMax: 4,
    namedStatements,
  });
  return {
    ...peer,
    async close() {
      await peer.close();
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    },
  };
}

const PEERS: Readonly<Record<string, () => Promise<RunningPeer>>> = {
  memory: () => startNodeMemoryPeer({ apiKeys: [API_KEY], seed: { pets: BENCH_PETS } }),
  PostgreSQL: () => benchPgPeer(),
};

/** What the bench compares before loading: the status, the body, and the headers of meaning. */
const meaning = async (origin: string, request: WireRequest) => {
  const { status, body, headers } = await sendHttp(origin, request);
  const { link, location, 'idempotent-replayed': replayed } = headers;
  return { status, body, link, location, replayed };
};

describe.each(Object.keys(PEERS))('the node:http peer over %s', (kind) => {
  const start = PEERS[kind] as () => Promise<RunningPeer>;

  test('answers the bench requests as the library does (the bench seed included)', async () => {
    const storage = await seededMemoryStorage();
    const ours = oursNodeServer(benchStore(storage));
    await new Promise<void>((resolve) => ours.listen(0, '127.0.0.1', resolve));
    const peer = await start();
    try {
      const oursAt = `http://127.0.0.1:${(ours.address() as AddressInfo).port}`;
      const peerAt = `http://127.0.0.1:${peer.port}`;
      const requests = [
        get(LIST_PATH),
        get('/v1/pets?limit=5&status=sold&cursor=OTk1'),
        create(),
        create({ 'idempotency-key': 'bench-1' }),
        create({ 'idempotency-key': 'bench-1' }),
        get(`/v1/pets/${LIST_SEED_SIZE + 2}`),
      ];
      for (const request of requests) {
        expect(await meaning(peerAt, request)).toEqual(await meaning(oursAt, request));
      }
    } finally {
      await peer.close();
      ours.close();
      await storage.close();
    }
  });

  test.each([
    ['chunked', {}],
    ['Content-Length', { 'content-length': '200' }],
  ])(
    'a client that hangs up mid-body (%s) gets no answer, and nothing is stored',
    async (_, headers) => {
      const peer = await start();
      try {
        const origin = `http://127.0.0.1:${peer.port}`;
        const before = await peer.store.listPets(LIST_SEED_SIZE - 1, 10, undefined);
        const chunks = [new TextEncoder().encode('{"name":"Half a')];
        const half = { ...create(headers), body: { chunks, hangUpAfter: delay(200) } };
        expect((await sendHttp(origin, half)).status, 'no answer on the wire').toBe(0);
        await delay(100);
        expect(await peer.store.listPets(LIST_SEED_SIZE - 1, 10, undefined)).toEqual(before);
        expect((await sendHttp(origin, create())).status, 'and serves on').toBe(201);
      } finally {
        await peer.close();
      }
    },
  );
});

describe.skipIf(pgbouncerUrl() === '')(
  'the node:http peer through PgBouncer (transaction mode)',
  () => {
    test('without named statements it creates, replays, refuses in-flight keys and pages', async () => {
      const peer = await benchPgPeer(pgbouncerUrl(), false);
      try {
        const origin = `http://127.0.0.1:${peer.port}`;
        const keyed = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            sendHttp(origin, create({ 'idempotency-key': `k${i % 5}` })),
          ),
        );
        const created = keyed.filter(
          (res) => res.status === 201 && res.headers['idempotent-replayed'] === undefined,
        );
        expect(created).toHaveLength(5);
        expect(keyed.every((res) => res.status === 201 || res.status === 409)).toBe(true);
        expect(
          (await sendHttp(origin, create({ 'idempotency-key': 'k0' }))).headers[
            'idempotent-replayed'
          ],
        ).toBe('true');
        const page = await sendHttp(origin, get(LIST_PATH));
        expect(JSON.parse(page.body)).toHaveLength(20);
        expect(page.headers.link).toBe('</v1/pets?limit=20&cursor=MjA>; rel="next"');
      } finally {
        await peer.close();
      }
    });
  },
);

test('PostgreSQL: keyed creates racing from many connections store one pet per key', async () => {
  const schema = uniqueSchema('peer_race');
  await createPgSchema(admin, schema);
  const store = createPgStore({ connectionString: postgresUrl(), schema, poolMax: 16 });
  try {
    const pet = { name: 'Rush', categoryId: 3, status: 'available' } as const;
    for (let round = 0; round < 10; round++) {
      const keys = Array.from({ length: 4 }, (_, i) => `race-${round}-${i}`);
      const outcomes = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          store.createPetKeyed(pet, {
            scope: 'id:racer',
            key: keys[i % 4] as string,
            fingerprint: 'f',
          }),
        ),
      );
      const created = outcomes.filter((outcome) => outcome.kind === 'created');
      expect(created).toHaveLength(4);
      const ids = new Set(created.map((outcome) => ('pet' in outcome ? outcome.pet.id : 0)));
      for (const outcome of outcomes) {
        if (outcome.kind === 'replayed') expect(ids.has(outcome.pet.id)).toBe(true);
        else expect(['created', 'in_flight']).toContain(outcome.kind);
      }
    }
    expect(await store.listPets(0, 100, undefined)).toHaveLength(40);
  } finally {
    await store.close();
    await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
  }
});
