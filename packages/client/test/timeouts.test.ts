import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  createPetStoreClient,
  DEFAULT_TIMEOUT_MS,
  type PetStoreClient,
  PetStoreError,
  type RetryEvent,
} from '../src/index.js';
import {
  neverAnswer,
  rejection,
  stallBody,
  stubServersClosedAfterEach,
} from './support/stub-server.js';

// Real sockets on 127.0.0.1: servers that accept and never answer, stall a body, or ask for a
// long wait, and count the requests that reach them.

const API_KEY = 'client-test-key-0123456789';
const serve = stubServersClosedAfterEach();

const isAbortError = (error: unknown) =>
  error instanceof DOMException && error.name === 'AbortError';

/** 503 with `Retry-After: 10`: the client waits ten seconds before its next attempt. */
const unavailable = (_request: IncomingMessage, response: ServerResponse): void => {
  response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '10' });
  response.end(JSON.stringify({ code: 'service_unavailable', message: 'Try again later.' }));
};

describe('timeoutMs', () => {
  it.each([
    ['accepts and never answers', neverAnswer],
    ['sends the headers, then stalls the body', stallBody],
  ])(
    'a service that %s: each attempt is cut after timeoutMs, retried, then a timeout PetStoreError',
    async (_, handle) => {
      const server = await serve(handle);
      const retries: RetryEvent[] = [];
      const sentAt: number[] = [];
      const cutAt: number[] = [];
      const pets = createPetStoreClient({
        baseUrl: server.baseUrl,
        apiKey: API_KEY,
        timeoutMs: 300,
        retries: 2,
        fetch: (input, init) => {
          sentAt.push(performance.now());
          return fetch(input, init);
        },
        onRetry: (event) => {
          cutAt.push(performance.now());
          retries.push(event);
        },
      });
      const started = performance.now();
      const error = await rejection(pets.listPets({ limit: 2 }));
      cutAt.push(performance.now());
      const elapsed = performance.now() - started;

      expect(error).toBeInstanceOf(PetStoreError);
      expect(error).toMatchObject({ status: 0, code: 'timeout', requestId: undefined });
      expect((error as PetStoreError).cause).toMatchObject({ name: 'TimeoutError' });
      expect((error as PetStoreError).message).toBe(
        `No complete answer from GET ${server.baseUrl}/pets?limit=2 within 300 ms`,
      );
      expect(server.requests.map((request) => request.url)).toEqual([
        '/v1/pets?limit=2',
        '/v1/pets?limit=2',
        '/v1/pets?limit=2',
      ]);
      expect(retries.map((event) => [event.retry, event.reason, event.status])).toEqual([
        [1, 'timeout', 0],
        [2, 'timeout', 0],
      ]);
      // Each attempt is cut after its 300 ms (timers may fire a millisecond early), not later
      // than a busy machine explains.
      const durations = sentAt.map((at, index) => (cutAt[index] ?? 0) - at);
      expect(durations).toHaveLength(3);
      for (const duration of durations) {
        expect(duration).toBeGreaterThanOrEqual(299);
        expect(duration).toBeLessThan(1_000);
      }
      // Three attempts and two waits (100-200 ms, 200-400 ms), with room for a busy machine.
      expect(elapsed).toBeGreaterThanOrEqual(900 + 300);
      expect(elapsed).toBeLessThan(4_000);
    },
  );

  it('retries a create that timed out with the same Idempotency-Key, then outcome_unknown with it', async () => {
    const server = await serve(stallBody);
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      timeoutMs: 200,
      retries: 1,
    });
    const error = await rejection(
      pets.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'timed-out-create' }),
    );
    // The service may have stored it before the answer was cut: retry later with the key.
    expect(error).toMatchObject({
      status: 0,
      code: 'outcome_unknown',
      idempotencyKey: 'timed-out-create',
    });
    expect((error as PetStoreError).cause).toMatchObject({ status: 0, code: 'timeout' });
    expect(server.requests.map((request) => [request.method, request.idempotencyKey])).toEqual([
      ['POST', 'timed-out-create'],
      ['POST', 'timed-out-create'],
    ]);
  });

  it('bounds the attempt even when the fetch option ignores its signal', async () => {
    const server = await serve(neverAnswer);
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      timeoutMs: 200,
      retries: 0,
      fetch: (input, init) => fetch(input, { ...init, signal: null }),
    });
    const started = performance.now();
    expect(await rejection(pets.listPets())).toMatchObject({ status: 0, code: 'timeout' });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('a body cut off mid-way is a network_error, retried like a refused connection', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[{"id":1,', () => response.socket?.destroy());
    });
    const pets = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: API_KEY, retries: 1 });
    expect(await rejection(pets.listPets())).toMatchObject({ status: 0, code: 'network_error' });
    expect(server.requests).toHaveLength(2);
  });

  it(`defaults to ${DEFAULT_TIMEOUT_MS} ms per attempt`, async () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(10_000);
    const server = await serve(neverAnswer);
    const pets = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: API_KEY, retries: 0 });
    const started = performance.now();
    expect(await rejection(pets.listPets())).toMatchObject({ status: 0, code: 'timeout' });
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(DEFAULT_TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(DEFAULT_TIMEOUT_MS + 3_000);
  }, 30_000);

  it('must be a whole number of milliseconds from 1 to 2147483647', () => {
    const make = (timeoutMs: unknown) =>
      createPetStoreClient({
        baseUrl: 'http://127.0.0.1:1/v1',
        apiKey: API_KEY,
        timeoutMs: timeoutMs as number,
      });
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '100']) {
      expect(() => make(bad)).toThrow(TypeError);
      expect(() => make(bad)).toThrow(`got ${String(bad)}`);
    }
    expect(() => make(1)).not.toThrow();
    expect(() => make(2 ** 31 - 1)).not.toThrow();
    expect(() => make(undefined)).not.toThrow();
  });
});

describe('signal', () => {
  const everyCall = (pets: PetStoreClient, signal: AbortSignal) => ({
    createPet: () => pets.createPet({ name: 'Rex', categoryId: 1 }, { signal }),
    listPets: () => pets.listPets({}, { signal }),
    pets: () => pets.pets({}, { signal }).next(),
    getPet: () => pets.getPet(1, { signal }),
    listOrders: () => pets.listOrders({}, { signal }),
    orders: () => pets.orders({}, { signal }).next(),
  });

  it('aborted before the call: every method rejects with the reason and sends nothing', async () => {
    const server = await serve(neverAnswer);
    const pets = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: API_KEY });
    const plain = new AbortController();
    plain.abort();
    const reason = new Error('the page was left');
    const withReason = new AbortController();
    withReason.abort(reason);
    for (const [name, call] of Object.entries(everyCall(pets, plain.signal))) {
      const error = await rejection(call());
      expect(isAbortError(error), `${name}: ${String(error)}`).toBe(true);
    }
    for (const call of Object.values(everyCall(pets, withReason.signal))) {
      expect(await rejection(call())).toBe(reason);
    }
    await sleep(100);
    expect(server.requests).toEqual([]);
  });

  it.each([
    ['waiting for the headers', neverAnswer],
    ['reading the body', stallBody],
  ])(
    'aborted while %s: every method rejects at once with AbortError, no retry',
    async (_, handle) => {
      const server = await serve(handle);
      const retries: RetryEvent[] = [];
      const pets = createPetStoreClient({
        baseUrl: server.baseUrl,
        apiKey: API_KEY,
        timeoutMs: 5_000,
        onRetry: (event) => retries.push(event),
      });
      const names = Object.keys(everyCall(pets, new AbortController().signal)) as Array<
        keyof ReturnType<typeof everyCall>
      >;
      for (const [index, name] of names.entries()) {
        const controller = new AbortController();
        const pending = rejection(everyCall(pets, controller.signal)[name]());
        await server.received(index + 1);
        // Let the headers (stallBody) reach the client, so the abort lands in the body read.
        await sleep(50);
        const aborted = performance.now();
        controller.abort();
        const error = await pending;
        expect(isAbortError(error), `${name}: ${String(error)}`).toBe(true);
        expect(performance.now() - aborted).toBeLessThan(500);
      }
      // Nothing retried: one request per call, even after a while.
      await sleep(300);
      expect(server.requests).toHaveLength(names.length);
      expect(retries).toEqual([]);
    },
  );

  it('aborted during the wait between attempts: rejects at once, no further attempt', async () => {
    const server = await serve(unavailable);
    const controller = new AbortController();
    const retries: RetryEvent[] = [];
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      onRetry: (event) => {
        retries.push(event);
        setTimeout(() => controller.abort(), 100);
      },
    });
    const started = performance.now();
    const error = await rejection(
      pets.createPet({ name: 'Rex', categoryId: 1 }, { signal: controller.signal }),
    );
    expect(isAbortError(error), String(error)).toBe(true);
    expect(retries.map((event) => [event.reason, event.waitMs])).toEqual([
      ['service_unavailable', 10_000],
    ]);
    // Well before the ten seconds the service asked for.
    expect(performance.now() - started).toBeLessThan(2_000);
    await sleep(300);
    expect(server.requests).toHaveLength(1);
  });

  it('a pets() walk aborted between pages stops: no further page, no further pet', async () => {
    const server = await serve((request, response) => {
      const page = Number(new URL(request.url ?? '', 'http://x').searchParams.get('cursor') ?? 0);
      const items = [1, 2].map((n) => ({
        id: page * 2 + n,
        name: `pet-${page * 2 + n}`,
        categoryId: 1,
        status: 'available',
      }));
      response.writeHead(200, {
        'content-type': 'application/json',
        link: `</v1/pets?limit=2&cursor=${page + 1}>; rel="next"`,
      });
      response.end(JSON.stringify(items));
    });
    const pets = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: API_KEY });

    // Between pages: after the last pet of the second page.
    const between = new AbortController();
    const seen: number[] = [];
    const error = await rejection(
      (async () => {
        for await (const pet of pets.pets({ limit: 2 }, { signal: between.signal })) {
          seen.push(pet.id);
          if (seen.length === 4) between.abort();
        }
      })(),
    );
    expect(isAbortError(error), String(error)).toBe(true);
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(server.requests.map((request) => request.url)).toEqual([
      '/v1/pets?limit=2',
      '/v1/pets?limit=2&cursor=1',
    ]);

    // Within a page: the rest of a page already fetched is not handed out either.
    const within = new AbortController();
    const walk = pets.pets({ limit: 2 }, { signal: within.signal });
    expect((await walk.next()).value).toMatchObject({ id: 1 });
    within.abort();
    expect(isAbortError(await rejection(walk.next()))).toBe(true);
    expect(await walk.next()).toEqual({ done: true, value: undefined });
    expect(server.requests).toHaveLength(3);
  });
});
