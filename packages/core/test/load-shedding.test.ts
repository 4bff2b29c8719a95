import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createPetStore,
  type PetStorage,
  type PetStoreOptions,
  type PetStoreRequest,
  type ResponseEvent,
  StorageUnavailableError,
  shedding,
} from '../src/index.js';
import { createLoadMonitor, RESOLUTION_MS } from '../src/pipeline/load-monitor.js';
import { arrayStorage } from './support/array-storage.js';

const KEY = 'shed-test-key-0123456789';
const AUTH = { authorization: `Bearer ${KEY}` };
const list: PetStoreRequest = { method: 'GET', path: '/pets', headers: AUTH };
/** A request the storage answers with nothing found (404), whatever its lists do. */
const getOne: PetStoreRequest = { method: 'GET', path: '/pets/1', headers: AUTH };

/** Holds the event loop, as a long synchronous job (or a backlog) would. */
function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A storage that counts every call made to it. */
function countedStorage(): { storage: PetStorage; calls: () => number } {
  const inner = arrayStorage();
  let calls = 0;
  const storage = Object.fromEntries(
    Object.entries(inner).map(([name, method]) => [
      name,
      (...args: unknown[]) => {
        calls++;
        return (method as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as PetStorage;
  return { storage, calls: () => calls };
}

/** A create whose body stream records whether anyone started reading it. */
function createWithWatchedBody(): { request: PetStoreRequest; pulled: () => boolean } {
  let pulled = false;
  const bytes = new TextEncoder().encode('{"name":"Rex","categoryId":1}');
  const body: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      pulled = true;
      yield bytes;
    },
  };
  const request = {
    method: 'POST',
    path: '/pets',
    headers: { ...AUTH, 'content-type': 'application/json', 'idempotency-key': 'shed-1' },
    body,
  };
  return { request, pulled: () => pulled };
}

/** Asks until a request is served again (the loop back on time), within a deadline. */
async function servedAgain(store: ReturnType<typeof createPetStore>, deadlineMs = 5_000) {
  const deadline = performance.now() + deadlineMs;
  for (;;) {
    const res = await store.handle(list);
    if (res.status !== 503 || performance.now() > deadline) return res;
    await sleep(RESOLUTION_MS);
  }
}

const storeWith = (options: Partial<PetStoreOptions>) => {
  const { storage, calls } = countedStorage();
  const events: ResponseEvent[] = [];
  const errors: unknown[] = [];
  const store = createPetStore({
    storage,
    apiKeys: [KEY],
    hooks: { onResponse: (event) => events.push(event), onError: (event) => errors.push(event) },
    ...options,
  });
  return { store, calls, events, errors };
};

// A limit well above what a busy test machine adds by itself, and a block well above the limit.
const LIMIT_MS = 150;
const BLOCK_MS = 400;

afterEach(async () => {
  vi.unstubAllGlobals();
  // Let the timers of the stores above run out, so no test starts inside another's shedding.
  await sleep(RESOLUTION_MS * 3);
});

describe('load shedding on a late event loop', () => {
  it('answers the next request 503 at once, before its body or the storage, then serves again', async () => {
    const { store, calls, events, errors } = storeWith({
      loadShedding: { maxEventLoopDelayMs: LIMIT_MS, retryAfterSeconds: 7 },
    });
    expect((await store.handle(list)).status).toBe(200);
    const before = calls();
    // The first request armed the timer; nothing lets it fire while the loop is held.
    busyWait(BLOCK_MS);
    const { request, pulled } = createWithWatchedBody();
    const shed = await store.handle(request);
    expect(shed.status).toBe(503);
    expect(shed.headers['retry-after']).toBe('7');
    expect(shed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(shed.headers['x-request-id']).toMatch(/\S/);
    expect(JSON.parse(shed.body ?? '')).toEqual({
      code: 'service_unavailable',
      message: 'The pet store is overloaded; retry later.',
      status: 503,
    });
    expect(pulled()).toBe(false);
    expect(calls()).toBe(before);
    expect(events.at(-1)).toMatchObject({
      status: 503,
      cause: 'shed_event_loop_delay',
      route: undefined,
      operationId: undefined,
    });
    // Shedding is no error of anyone's: nothing for onError.
    expect(errors).toEqual([]);

    const again = await servedAgain(store);
    expect(again.status).toBe(200);
    expect(calls()).toBeGreaterThan(before);
  });

  it('sheds every request alike, before authentication, routing and the document', async () => {
    const { store } = storeWith({ loadShedding: { maxEventLoopDelayMs: LIMIT_MS } });
    await store.handle(list);
    busyWait(BLOCK_MS);
    const requests: PetStoreRequest[] = [
      { method: 'GET', path: '/pets', headers: {} },
      { method: 'GET', path: '/pets', headers: { authorization: 'Bearer wrong-key-0123456789' } },
      { method: 'GET', path: '/nowhere', headers: AUTH },
      { method: 'DELETE', path: '/pets', headers: AUTH },
      { method: 'GET', path: '/openapi.json', headers: {} },
      { method: 'GET', path: '/pets/7', headers: AUTH },
    ];
    const answers = [];
    for (const request of requests) answers.push(await store.handle(request));
    expect(answers.map((res) => [res.status, res.headers['retry-after']])).toEqual(
      requests.map(() => [503, '10']),
    );
    // No deprecation headers: like a 401, the answer comes before the operation.
    expect(answers.at(-1)?.headers.deprecation).toBeUndefined();
    expect((await servedAgain(store)).status).toBe(200);
  });

  it('is on by default, at 1000 ms', async () => {
    const { store, events } = storeWith({});
    await store.handle(list);
    busyWait(1_200);
    expect((await store.handle(list)).status).toBe(503);
    expect(events.at(-1)?.cause).toBe('shed_event_loop_delay');
    expect((await servedAgain(store)).status).toBe(200);
  });

  it('keeps serving a loop that is late by less than the limit', async () => {
    const { store } = storeWith({ loadShedding: { maxEventLoopDelayMs: 5_000 } });
    await store.handle(list);
    busyWait(BLOCK_MS);
    expect((await store.handle(list)).status).toBe(200);
  });

  it('does nothing with `false`, or with both limits 0', async () => {
    for (const loadShedding of [false, { maxEventLoopDelayMs: 0 }] as const) {
      const { store, events } = storeWith({ loadShedding });
      const timers = vi.spyOn(globalThis, 'setTimeout');
      try {
        await store.handle(list);
        busyWait(BLOCK_MS);
        expect((await store.handle(list)).status).toBe(200);
        expect(events.map((event) => event.cause)).toEqual([undefined, undefined]);
        expect(timers).not.toHaveBeenCalled();
      } finally {
        timers.mockRestore();
      }
    }
  });
});

describe('load shedding on a full heap', () => {
  it('sheds while the heap in use is over maxHeapUsedBytes', async () => {
    const { store, calls, events } = storeWith({
      loadShedding: { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 1 },
    });
    const res = await store.handle(list);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('10');
    expect(calls()).toBe(0);
    expect(events.map((event) => event.cause)).toEqual(['shed_heap_used']);
    await sleep(RESOLUTION_MS * 3);
    expect((await store.handle(list)).status).toBe(503);
  });

  it('serves under the limit, and without process.memoryUsage (workerd, browsers)', async () => {
    const roomy = storeWith({ loadShedding: { maxHeapUsedBytes: Number.MAX_SAFE_INTEGER } });
    expect((await roomy.store.handle(list)).status).toBe(200);
    // The monitor reads what the host has once, when the store is made.
    const memoryUsage = process.memoryUsage;
    Object.assign(process, { memoryUsage: undefined });
    let blind: ReturnType<typeof storeWith>;
    try {
      blind = storeWith({ loadShedding: { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 1 } });
    } finally {
      Object.assign(process, { memoryUsage });
    }
    expect((await blind.store.handle(list)).status).toBe(200);
  });
});

/** A promise you settle yourself. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * A storage whose lists and creates wait on a gate until `release()` (later calls too, until
 * then), counting the calls made to them.
 */
function gatedStorage(): { storage: PetStorage; calls: () => number; release: () => void } {
  const inner = arrayStorage();
  const { opened, open } = gate();
  let calls = 0;
  const held =
    <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      calls++;
      await opened;
      return method(...args);
    };
  const storage: PetStorage = {
    ...inner,
    listPets: held(inner.listPets),
    createPet: held(inner.createPet),
    createPetIdempotent: held(inner.createPetIdempotent),
  };
  return { storage, calls: () => calls, release: open };
}

/** Lets every pending promise callback run (the storage calls of requests started above). */
const settle = () => sleep(0);

describe('load shedding on requests in flight', () => {
  const gatedStore = (loadShedding: PetStoreOptions['loadShedding']) => {
    const gated = gatedStorage();
    return { ...storeWith({ storage: gated.storage, loadShedding }), ...gated };
  };

  it('answers the request past maxInFlight 503 at once, before its body or the storage, then serves again', async () => {
    const { store, calls, release, events, errors } = gatedStore({
      maxEventLoopDelayMs: 0,
      maxInFlight: 2,
      retryAfterSeconds: 7,
    });
    const first = store.handle(list);
    const second = store.handle({ ...list, query: 'limit=5' });
    await settle();
    expect(calls()).toBe(2);

    const { request, pulled } = createWithWatchedBody();
    const shed = await store.handle(request);
    expect(shed.status).toBe(503);
    expect(shed.headers['retry-after']).toBe('7');
    expect(shed.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(shed.headers['x-request-id']).toMatch(/\S/);
    expect(JSON.parse(shed.body ?? '')).toEqual({
      code: 'service_unavailable',
      message: 'The pet store is overloaded; retry later.',
      status: 503,
    });
    await settle();
    expect(pulled()).toBe(false);
    expect(calls()).toBe(2);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      status: 503,
      cause: 'shed_in_flight',
      route: undefined,
      operationId: undefined,
    });
    expect(errors).toEqual([]);
    // Every request alike, with a key or without, to any path.
    for (const other of [
      { method: 'GET', path: '/openapi.json', headers: {} },
      { ...list, headers: {} },
    ]) {
      expect((await store.handle(other)).status).toBe(503);
    }

    release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    const again = await store.handle(request);
    expect(again.status).toBe(201);
    expect(pulled()).toBe(true);
    expect(calls()).toBe(3);
    expect(events.map((event) => event.cause ?? event.status)).toEqual([
      'shed_in_flight',
      'shed_in_flight',
      'shed_in_flight',
      200,
      200,
      201,
    ]);
  });

  it('counts a request until its answer is ready, and never counts a shed one', async () => {
    const { store, release } = gatedStore({ maxEventLoopDelayMs: 0, maxInFlight: 2 });
    const first = store.handle(list);
    const second = store.handle(list);
    for (let i = 0; i < 5; i++) expect((await store.handle(list)).status).toBe(503);
    release();
    await first;
    // One left, and the five shed ones took no place: room for exactly one more.
    const third = store.handle(list);
    const fourth = store.handle(list);
    expect((await store.handle(list)).status).toBe(503);
    expect((await second).status).toBe(200);
    expect((await third).status).toBe(200);
    expect((await fourth).status).toBe(200);
    // Answers built at once leave at once: these never wait on one another.
    const refused = [1, 2, 3].map(() =>
      store.handle({ method: 'GET', path: '/nowhere', headers: AUTH }),
    );
    expect((await Promise.all(refused)).map((res) => res.status)).toEqual([404, 404, 404]);
  });

  it('frees the place of a request however it ends', async () => {
    // One place: a request that kept it would have every later one shed.
    const paths: {
      name: string;
      storage: Partial<PetStorage>;
      request: () => PetStoreRequest;
      status: number;
    }[] = [];
    const boom = () => {
      throw new Error('boom');
    };
    const create = (body: PetStoreRequest['body'], headers: Record<string, string> = {}) => ({
      method: 'POST',
      path: '/pets',
      headers: { ...AUTH, 'content-type': 'application/json', ...headers },
      body,
    });
    const big = new TextEncoder().encode(`{"name":"${'x'.repeat(20_000)}","categoryId":1}`);
    paths.push(
      {
        name: 'a storage that throws',
        storage: { listPets: boom },
        request: () => list,
        status: 500,
      },
      {
        name: 'a storage that rejects',
        storage: { listPets: async () => boom() },
        request: () => list,
        status: 500,
      },
      {
        name: 'a storage unavailable',
        storage: {
          listPets: async () => {
            throw new StorageUnavailableError('down', { reason: 'timeout' });
          },
        },
        request: () => list,
        status: 503,
      },
      {
        name: 'a body too large, streamed',
        storage: {},
        request: () =>
          create({
            async *[Symbol.asyncIterator]() {
              yield big;
            },
          }),
        status: 413,
      },
      {
        name: 'a body too large, declared',
        storage: {},
        request: () => create(big, { 'content-length': String(big.byteLength) }),
        status: 413,
      },
      {
        name: 'a client gone, as the host saw it',
        storage: {},
        request: () => create({ kind: 'unreadable', reason: 'aborted' }),
        status: 499,
      },
    );
    for (const { name, storage, request, status } of paths) {
      const { store, events } = storeWith({
        storage: { ...arrayStorage(), ...storage },
        loadShedding: { maxEventLoopDelayMs: 0, maxInFlight: 1 },
      });
      expect((await store.handle(request())).status, name).toBe(status);
      expect((await store.handle(getOne)).status, name).toBe(404);
      expect(
        events.map((event) => event.cause?.startsWith('shed_') === true),
        name,
      ).toEqual([false, false]);
    }
  });

  it('frees the place of a client that hangs up mid-body, which held none while it sent', async () => {
    const { store, events } = storeWith({
      loadShedding: { maxEventLoopDelayMs: 0, maxInFlight: 1 },
    });
    const hangUp = gate();
    const body: AsyncIterable<Uint8Array> = {
      async *[Symbol.asyncIterator]() {
        yield new TextEncoder().encode('{"name":');
        await hangUp.opened;
        throw new Error('socket hang up');
      },
    };
    const aborted = store.handle({
      method: 'POST',
      path: '/pets',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body,
    });
    await settle();
    // Waiting on its client, the create holds no place: the one place is free for this list.
    expect((await store.handle(list)).status).toBe(200);
    hangUp.open();
    const gone = await aborted;
    expect([gone.status, gone.aborted]).toEqual([499, true]);
    expect((await store.handle(list)).status).toBe(200);
    expect(events.map((event) => event.cause ?? event.status)).toEqual([200, 499, 200]);
  });

  it('counts a create only once its body is in: unfinished bodies keep nobody out, and a body in while the limit is full is shed', async () => {
    const { store, calls, release, events } = gatedStore({
      maxEventLoopDelayMs: 0,
      maxInFlight: 2,
    });
    // Two creates whose clients send the first bytes of their bodies, then nothing for now.
    const rest = [gate(), gate()];
    const [first, second] = rest.map((more, n) =>
      store.handle({
        method: 'POST',
        path: '/pets',
        headers: { ...AUTH, 'content-type': 'application/json', 'idempotency-key': `slow-${n}` },
        body: {
          async *[Symbol.asyncIterator]() {
            yield new TextEncoder().encode('{"name":"Rex",');
            await more.opened;
            yield new TextEncoder().encode('"categoryId":1}');
          },
        },
      }),
    );
    await settle();
    // As many as the limit, and still every other request is served: two lists take the places.
    const lists = [store.handle(list), store.handle(list)];
    await settle();
    expect(calls()).toBe(2);
    expect((await store.handle(list)).status).toBe(503);
    // The first body is in while both places are held: that create is shed, never stored.
    rest[0]?.open();
    const shed = await first;
    expect(shed?.status).toBe(503);
    expect(shed?.headers['retry-after']).toBe('10');
    expect(JSON.parse(shed?.body ?? '')).toMatchObject({ code: 'service_unavailable' });
    expect(calls()).toBe(2);
    // Once the lists are answered, the second body in takes a place and is stored.
    release();
    expect((await Promise.all(lists)).map((res) => res.status)).toEqual([200, 200]);
    rest[1]?.open();
    expect((await second)?.status).toBe(201);
    expect(calls()).toBe(3);
    expect(events.map((event) => event.cause ?? event.status)).toEqual([
      'shed_in_flight',
      'shed_in_flight',
      200,
      200,
      201,
    ]);
    expect(events[1]).toMatchObject({ route: '/pets', operationId: 'createPet' });
    // Every place given back: two requests in flight at once again, the third shed.
    const more = [store.handle(list), store.handle(list)];
    expect((await store.handle(list)).status).toBe(503);
    expect((await Promise.all(more)).map((res) => res.status)).toEqual([200, 200]);
  });

  it('frees the place of a request whose answer cannot be built (handle rejects)', async () => {
    // A storage that answers a pet JSON cannot write: a bug, but no place may be lost to it.
    const { store } = storeWith({
      storage: { ...arrayStorage(), listPets: async () => [{ id: 1n } as never] },
      loadShedding: { maxEventLoopDelayMs: 0, maxInFlight: 1 },
    });
    // However `handle` ends it (today: rejected, as JSON.stringify throws), not with a 200.
    const outcome = await store.handle(list).then(
      (res) => res.status,
      () => 'rejected',
    );
    expect(outcome).not.toBe(200);
    expect((await store.handle(getOne)).status).toBe(404);
  });

  it('holds beside the event loop check (on by default), and on workerd, which has no monitor', async () => {
    const withLoop = gatedStore({ maxInFlight: 1 });
    const held = withLoop.store.handle(list);
    await settle();
    expect((await withLoop.store.handle(list)).status).toBe(503);
    expect(withLoop.events.at(-1)?.cause).toBe('shed_in_flight');
    withLoop.release();
    expect((await held).status).toBe(200);

    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
    const worker = gatedStore({ maxInFlight: 1 });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    try {
      const pending = worker.store.handle(list);
      await Promise.resolve();
      expect((await worker.store.handle(list)).status).toBe(503);
      expect(worker.events.at(-1)?.cause).toBe('shed_in_flight');
      worker.release();
      expect((await pending).status).toBe(200);
      expect((await worker.store.handle(list)).status).toBe(200);
      expect(timers).not.toHaveBeenCalled();
    } finally {
      timers.mockRestore();
    }
  });

  it('is off by default and at 0', async () => {
    for (const loadShedding of [
      undefined,
      { maxInFlight: 0 },
      { maxEventLoopDelayMs: 0, maxInFlight: 0 },
    ]) {
      const { store, release } = gatedStore(loadShedding);
      const pending = Array.from({ length: 50 }, () => store.handle(list));
      await settle();
      release();
      const statuses = (await Promise.all(pending)).map((res) => res.status);
      expect(statuses, JSON.stringify(loadShedding)).toEqual(pending.map(() => 200));
    }
  });
});

describe('shedding(store): the verdict for a request arriving now, without one', () => {
  it('says why a request would be shed, as handle would, and nothing otherwise', async () => {
    const gated = gatedStorage();
    const { store } = storeWith({
      storage: gated.storage,
      loadShedding: { maxEventLoopDelayMs: LIMIT_MS, maxInFlight: 1 },
    });
    const { release } = gated;
    expect(shedding(store)).toBeUndefined();
    const held = store.handle(list);
    await settle();
    expect(shedding(store)).toBe('shed_in_flight');
    expect((await store.handle(list)).status).toBe(503);
    release();
    expect((await held).status).toBe(200);
    expect(shedding(store)).toBeUndefined();
    // A loop held past the limit: the monitor's verdict, as the next request would get it.
    shedding(store);
    busyWait(BLOCK_MS);
    expect(shedding(store)).toBe('shed_event_loop_delay');
    expect((await servedAgain(store)).status).toBe(200);
    expect(shedding(store)).toBeUndefined();
  });

  it('is undefined with load shedding off, and for a store createPetStore did not make', () => {
    const off = createPetStore({ storage: arrayStorage(), apiKeys: [KEY], loadShedding: false });
    expect(shedding(off)).toBeUndefined();
    const other = { openApiDocument: {}, handle: off.handle };
    expect(shedding(other)).toBeUndefined();
  });
});

describe('the load monitor', () => {
  it('holds a timer only while requests come: none once the store is idle', async () => {
    const monitor = createLoadMonitor({
      maxEventLoopDelayMs: LIMIT_MS,
      maxHeapUsedBytes: Number.MAX_SAFE_INTEGER,
      maxInFlight: 0,
      retryAfterSeconds: 1,
    });
    expect(monitor?.armed).toBe(false);
    expect(monitor?.check(performance.now())).toBeUndefined();
    expect(monitor?.armed).toBe(true);
    // Many requests, one timer.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    for (let i = 0; i < 1000; i++) monitor?.check(performance.now());
    expect(timers).not.toHaveBeenCalled();
    timers.mockRestore();
    await sleep(RESOLUTION_MS * 4);
    expect(monitor?.armed).toBe(false);
    // After a late loop it measures until on time, then stops.
    monitor?.check(performance.now());
    busyWait(BLOCK_MS);
    expect(monitor?.check(performance.now())).toBe('shed_event_loop_delay');
    const deadline = performance.now() + 5_000;
    while (monitor?.armed && performance.now() < deadline) await sleep(RESOLUTION_MS);
    expect(monitor?.armed).toBe(false);
    expect(monitor?.check(performance.now())).toBeUndefined();
  });

  it('is not made where timers end with their request (workerd)', () => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
    const limits = {
      maxEventLoopDelayMs: 1000,
      maxHeapUsedBytes: 0,
      maxInFlight: 0,
      retryAfterSeconds: 10,
    };
    expect(createLoadMonitor(limits)).toBeUndefined();
    vi.unstubAllGlobals();
    expect(createLoadMonitor(limits)).toBeDefined();
    // The in-flight limit alone needs no monitor (it is not the monitor's).
    expect(
      createLoadMonitor({ ...limits, maxEventLoopDelayMs: 0, maxInFlight: 8 }),
    ).toBeUndefined();
  });

  it('lets a process that served requests exit on its own, promptly', async () => {
    const script = fileURLToPath(new URL('./support/serve-then-idle.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@petstore/source', script],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let answeredAt = 0;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (answeredAt === 0 && out.includes('answered')) answeredAt = performance.now();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code] = await once(child, 'exit');
    clearTimeout(killer);
    expect(out).toContain('answered 200 503');
    expect(code, out).toBe(0);
    // The last timer fires 10 ms after the last request; a late one arms one more.
    expect(performance.now() - answeredAt).toBeLessThan(2_000);
  });
});

describe('the loadShedding option', () => {
  const make = (loadShedding: unknown) => () =>
    createPetStore({
      storage: arrayStorage(),
      apiKeys: [KEY],
      loadShedding: loadShedding as PetStoreOptions['loadShedding'],
    });

  it('refuses values that are not limits, saying which and why', () => {
    const cases: [unknown, RegExp][] = [
      [true, /loadShedding must be false or an object of limits, got true/],
      ['on', /loadShedding must be false or an object/],
      [null, /loadShedding must be false or an object/],
      [
        { maxEventLoopDelayMs: -1 },
        /loadShedding.maxEventLoopDelayMs must be a number of at least 0 \(0 turns this check off\), got -1/,
      ],
      [{ maxEventLoopDelayMs: Number.NaN }, /maxEventLoopDelayMs.*got NaN/],
      [{ maxEventLoopDelayMs: Number.POSITIVE_INFINITY }, /maxEventLoopDelayMs.*got Infinity/],
      [{ maxEventLoopDelayMs: '100' }, /maxEventLoopDelayMs.*got "100"/],
      [{ maxHeapUsedBytes: 1.5 }, /loadShedding.maxHeapUsedBytes must be an integer of at least 0/],
      [{ maxHeapUsedBytes: -1 }, /maxHeapUsedBytes/],
      [
        { retryAfterSeconds: 0.5 },
        /loadShedding.retryAfterSeconds must be an integer of at least 0, got 0.5/,
      ],
      [{ retryAfterSeconds: -1 }, /retryAfterSeconds/],
      [
        { maxInFlight: -1 },
        /loadShedding.maxInFlight must be an integer of at least 0 \(0 turns this check off\), got -1/,
      ],
      [{ maxInFlight: 1.5 }, /loadShedding.maxInFlight must be an integer.*got 1.5/],
      [{ maxInFlight: Number.NaN }, /loadShedding.maxInFlight must be an integer.*got NaN/],
      [{ maxInFlight: 'x' }, /loadShedding.maxInFlight must be an integer.*got "x"/],
      [{ maxInFlight: Number.POSITIVE_INFINITY }, /maxInFlight.*got Infinity/],
    ];
    for (const [value, message] of cases) expect(make(value), String(value)).toThrow(message);
    for (const [value] of cases) expect(make(value)).toThrow(TypeError);
  });

  it('takes false, an empty object (the defaults), and any limits at or above 0', () => {
    for (const fine of [
      undefined,
      false,
      {},
      { maxEventLoopDelayMs: 0.5 },
      { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 512 * 1024 * 1024 },
      { retryAfterSeconds: 0 },
      { maxInFlight: 0 },
      { maxEventLoopDelayMs: 0, maxInFlight: 40 },
    ]) {
      expect(make(fine), JSON.stringify(fine)).not.toThrow();
    }
  });
});

describe('the document under load shedding', () => {
  // biome-ignore lint/suspicious/noExplicitAny: walking a parsed document in assertions only.
  type Json = Record<string, any>;
  const documentOf = (loadShedding: PetStoreOptions['loadShedding']) =>
    createPetStore({ storage: arrayStorage(), apiKeys: [KEY], loadShedding })
      .openApiDocument as Json;
  const operations = (document: Json) =>
    Object.values(document.paths as Json).flatMap((item) => Object.values(item as Json));

  it('documents a 503 with Retry-After on every operation while it is on (the default)', () => {
    const document = documentOf(undefined);
    for (const operation of operations(document)) {
      const unavailable = operation.responses['503'];
      expect(unavailable, operation.operationId).toBeDefined();
      expect(unavailable.headers['Retry-After']).toBeDefined();
      expect(unavailable.description).toMatch(/overloaded/);
    }
  });

  it('documents it as on with maxInFlight alone, and as off with every limit 0', () => {
    const inFlightOnly = documentOf({ maxEventLoopDelayMs: 0, maxInFlight: 40 });
    for (const operation of operations(inFlightOnly)) {
      expect(operation.responses['503']?.description, operation.operationId).toMatch(/overloaded/);
    }
    const none = documentOf({ maxEventLoopDelayMs: 0, maxInFlight: 0 });
    expect(none.paths['/openapi.json'].get.responses['503']).toBeUndefined();
  });

  it('documents only the storage 503s, in their own words, with `false`', () => {
    const document = documentOf(false);
    const served = document.paths['/openapi.json'].get;
    expect(served.responses['503']).toBeUndefined();
    expect(document.paths['/pets'].get.responses['503'].description).toBe(
      'Storage unreachable (`service_unavailable`); retry after `Retry-After` seconds.',
    );
  });
});
