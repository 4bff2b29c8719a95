import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  createPetStoreClient,
  DEFAULT_RETRIES,
  DEFAULT_RETRY_BUDGET_MS,
  PetStoreError,
  type RetryEvent,
} from '../src/index.js';
import { neverSent } from '../src/outcome.js';
import {
  neverAnswer,
  rejection,
  type StubServer,
  stubServer,
  stubServersClosedAfterEach,
  thrown,
  unavailable,
} from './support/stub-server.js';

// Retries bounded by time, not by a count, against real sockets on 127.0.0.1: a failover that
// outlasts the old four attempts, a service that never recovers, connections reset after the
// request was read, a port nothing listens on, a Retry-After past the budget, a caller's cancel.
// A create that ends without knowing whether it was stored throws `outcome_unknown`, carrying
// the Idempotency-Key to retry with; one never sent keeps its own code.

const API_KEY = 'client-test-key-0123456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const REX = { name: 'Rex', categoryId: 1 };
const serve = stubServersClosedAfterEach();

function created(request: IncomingMessage, response: ServerResponse): void {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => {
    body += chunk;
  });
  request.on('end', () => {
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ id: 7, status: 'available', ...JSON.parse(body) }));
  });
}

/** Reads the whole request, then resets the connection: the service may have acted on it. */
function resetAfterReading(request: IncomingMessage): void {
  request.resume();
  request.on('end', () => request.socket.resetAndDestroy());
}

/** A port on 127.0.0.1 that nothing listens on: connecting is refused, nothing is sent. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const keysSeen = (server: StubServer) => server.requests.map((request) => request.idempotencyKey);

describe('retries bounded by time (retryBudgetMs)', () => {
  it('outlasts a failover: five 503s with Retry-After: 1 over 5 s, then the 201, in one call', async () => {
    // Four attempts (three retries, the old default count) would have given up at about 3 s.
    let answered = 0;
    const server = await serve((request, response) => {
      answered += 1;
      if (answered <= 5) unavailable(response, '1');
      else created(request, response);
    });
    const retries: RetryEvent[] = [];
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      onRetry: (event) => retries.push(event),
    });
    const started = performance.now();
    const pet = await pets.createPet(REX);
    const elapsed = performance.now() - started;

    expect(pet).toEqual({ id: 7, name: 'Rex', categoryId: 1, status: 'available' });
    expect(server.requests).toHaveLength(6);
    const [key] = keysSeen(server);
    expect(key).toMatch(UUID);
    expect(new Set(keysSeen(server))).toEqual(new Set([key]));
    expect(retries.map((event) => [event.reason, event.waitMs, event.fromRetryAfter])).toEqual(
      Array.from({ length: 5 }, () => ['service_unavailable', 1000, true]),
    );
    expect(elapsed).toBeGreaterThanOrEqual(5_000 - 20);
    expect(elapsed).toBeLessThan(DEFAULT_RETRY_BUDGET_MS);
  }, 20_000);

  it('a service that always answers 503: outcome_unknown at the budget, carrying the key every attempt sent', async () => {
    const server = await serve((_request, response) => unavailable(response));
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retryBudgetMs: 2_000,
    });
    const started = performance.now();
    const error = await thrown(pets.createPet(REX));
    const elapsed = performance.now() - started;

    const [key] = keysSeen(server);
    expect(key).toMatch(UUID);
    expect(new Set(keysSeen(server))).toEqual(new Set([key]));
    expect(error).toMatchObject({
      status: 503,
      code: 'outcome_unknown',
      idempotencyKey: key,
      requestId: 'stub-503',
    });
    expect(error.message).toContain('may or may not');
    expect(error.message).toContain('Idempotency-Key');
    expect(error.message).toContain('error.idempotencyKey');
    expect(error.cause).toBeInstanceOf(PetStoreError);
    expect(error.cause).toMatchObject({ status: 503, code: 'service_unavailable' });
    // Backoff with jitter (100-200 ms, 200-400 ms...), the last wait cut to what remained:
    // the last attempt goes out at the budget's end, and the call ends with its answer.
    expect(server.requests.length).toBeGreaterThanOrEqual(5);
    const last = server.requests.at(-1)?.at ?? 0;
    const first = server.requests[0]?.at ?? 0;
    expect(last - first).toBeGreaterThanOrEqual(1_900);
    expect(elapsed).toBeGreaterThanOrEqual(1_950);
    expect(elapsed).toBeLessThan(2_000 + 1_000);
  });

  it('reads get the same budget, and keep their own code when they give up', async () => {
    const server = await serve((_request, response) => unavailable(response));
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retryBudgetMs: 2_000,
    });
    const started = performance.now();
    const error = await thrown(pets.listPets());
    const elapsed = performance.now() - started;
    expect(error).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(error).not.toHaveProperty('idempotencyKey', expect.anything());
    expect(elapsed).toBeGreaterThanOrEqual(1_950);
    expect(elapsed).toBeLessThan(2_000 + 1_000);
  });

  it('a connection reset after the service read the keyed POST: outcome_unknown with that key', async () => {
    const server = await serve(resetAfterReading);
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retryBudgetMs: 1_000,
    });
    const error = await thrown(pets.createPet(REX, { idempotencyKey: 'order-4711-pet-1' }));
    expect(error).toMatchObject({
      status: 0,
      code: 'outcome_unknown',
      idempotencyKey: 'order-4711-pet-1',
    });
    expect(error.cause).toMatchObject({ status: 0, code: 'network_error' });
    expect(server.requests.length).toBeGreaterThanOrEqual(3);
    expect(new Set(keysSeen(server))).toEqual(new Set(['order-4711-pet-1']));
  });

  it('a create that timed out: outcome_unknown, its cause the timeout', async () => {
    const server = await serve(neverAnswer);
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      timeoutMs: 300,
      retryBudgetMs: 500,
    });
    const error = await thrown(pets.createPet(REX, { idempotencyKey: 'timed-out-1' }));
    expect(error).toMatchObject({
      status: 0,
      code: 'outcome_unknown',
      idempotencyKey: 'timed-out-1',
    });
    expect(error.cause).toMatchObject({ status: 0, code: 'timeout' });
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('a refused port: every attempt until the budget, then network_error, not outcome_unknown', async () => {
    const port = await refusedPort();
    const retries: RetryEvent[] = [];
    const pets = createPetStoreClient({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: API_KEY,
      retryBudgetMs: 2_500,
      onRetry: (event) => retries.push(event),
    });
    const started = performance.now();
    const error = await thrown(pets.createPet(REX, { idempotencyKey: 'never-sent' }));
    const elapsed = performance.now() - started;
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
    expect(error).not.toHaveProperty('idempotencyKey', expect.anything());
    expect((error.cause as Error & { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED');
    // Retried through the budget (the old three retries ended within 1.4 s).
    expect(retries.length).toBeGreaterThanOrEqual(4);
    expect(elapsed).toBeGreaterThanOrEqual(2_450);
    expect(elapsed).toBeLessThan(2_500 + 1_000);
  });

  it('reset once after the request was read, then refused: still outcome_unknown', async () => {
    let closed: Promise<void> | undefined;
    const server = await stubServer((request) => {
      request.resume();
      request.on('end', () => {
        request.socket.resetAndDestroy();
        // The instance dies with the request in it: later attempts are refused.
        closed = server.close();
      });
    });
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retryBudgetMs: 1_000,
    });
    const error = await thrown(pets.createPet(REX, { idempotencyKey: 'sent-once' }));
    await closed;
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({
      status: 0,
      code: 'outcome_unknown',
      idempotencyKey: 'sent-once',
    });
    // The last attempt's failure: refused, nothing sent; the first one's is what is unknown.
    expect(error.cause).toMatchObject({ status: 0, code: 'network_error' });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('a Retry-After longer than what remains of the budget: gives up then, not after it', async () => {
    let answered = 0;
    const server = await serve((_request, response) => {
      answered += 1;
      unavailable(response, answered <= 2 ? '1' : '30');
    });
    const retries: RetryEvent[] = [];
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retryBudgetMs: 3_000,
      onRetry: (event) => retries.push(event),
    });
    const started = performance.now();
    const error = await thrown(pets.createPet(REX));
    const elapsed = performance.now() - started;
    expect(error).toMatchObject({ status: 503, code: 'outcome_unknown' });
    expect(error.idempotencyKey).toBe(server.requests[0]?.idempotencyKey);
    // Waited the two 1 s asked for; the third answer's 30 s would end past the budget, so no
    // attempt is made early against it, and none after it.
    expect(retries.map((event) => [event.waitMs, event.fromRetryAfter])).toEqual([
      [1000, true],
      [1000, true],
    ]);
    expect(server.requests).toHaveLength(3);
    expect(elapsed).toBeGreaterThanOrEqual(2_000 - 20);
    expect(elapsed).toBeLessThan(3_000);
    await sleep(300);
    expect(server.requests).toHaveLength(3);
  }, 10_000);

  it("the caller's signal cuts a long budget at once, during a wait, with its reason", async () => {
    const server = await serve((_request, response) => unavailable(response, '1'));
    const controller = new AbortController();
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retryBudgetMs: 60_000,
    });
    const pending = rejection(pets.createPet(REX, { signal: controller.signal }));
    // Past where three retries would have ended (about 3 s), inside the wait after the fifth.
    await Promise.race([server.received(5), sleep(6_000)]);
    await sleep(300);
    const aborted = performance.now();
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    expect(performance.now() - aborted).toBeLessThan(200);
    await sleep(1_200);
    expect(server.requests).toHaveLength(5);
  }, 15_000);

  it('retries is a safety bound on attempts, within the budget', async () => {
    const server = await serve((_request, response) => unavailable(response));
    const pets = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retries: 2,
      retryBudgetMs: 30_000,
    });
    const error = await thrown(pets.createPet(REX));
    expect(error).toMatchObject({ status: 503, code: 'outcome_unknown' });
    expect(server.requests).toHaveLength(3);
    expect(DEFAULT_RETRIES).toBeGreaterThanOrEqual(DEFAULT_RETRY_BUDGET_MS / 1000);
    expect(DEFAULT_RETRY_BUDGET_MS).toBeGreaterThanOrEqual(30_000);
  });

  it('retryBudgetMs must be a whole number of milliseconds from 0 to 2147483647; 0 retries nothing', async () => {
    const make = (retryBudgetMs: unknown, baseUrl = 'http://127.0.0.1:1/v1') =>
      createPetStoreClient({ baseUrl, apiKey: API_KEY, retryBudgetMs: retryBudgetMs as number });
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '100']) {
      expect(() => make(bad)).toThrow(TypeError);
      expect(() => make(bad)).toThrow(`got ${String(bad)}`);
    }
    expect(() => make(2 ** 31 - 1)).not.toThrow();
    expect(() => make(undefined)).not.toThrow();
    const server = await serve((_request, response) => unavailable(response));
    const error = await thrown(make(0, server.baseUrl).createPet(REX));
    expect(error).toMatchObject({ status: 503, code: 'outcome_unknown' });
    expect(server.requests).toHaveLength(1);
  });
});

describe('answers after which a keyed create is outcome_unknown at once (not retried)', () => {
  it.each([
    [502, 'text/html', '<html>Bad Gateway</html>'],
    [504, 'text/html', '<html>Gateway Timeout</html>'],
    [504, 'application/json', '{"code":"gateway_timeout","message":"upstream timed out"}'],
    [500, 'text/html', '<html>Internal proxy error</html>'],
  ])('a %i %s', async (status, type, body) => {
    const server = await serve((_request, response) => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    });
    const pets = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: API_KEY });
    const error = await thrown(pets.createPet(REX, { idempotencyKey: 'behind-a-proxy' }));
    expect(error).toMatchObject({
      status,
      code: 'outcome_unknown',
      idempotencyKey: 'behind-a-proxy',
    });
    expect(server.requests).toHaveLength(1);
    // A read of the same answer keeps its code: nothing was written.
    const read = await thrown(pets.listPets());
    expect(read.code).not.toBe('outcome_unknown');
  });

  it("the service's own JSON 500 and its 4xx answers keep their codes", async () => {
    const answers = [
      [500, 'internal_error'],
      [400, 'invalid_request'],
      [422, 'idempotency_key_reused'],
    ] as const;
    let index = 0;
    const server = await serve((_request, response) => {
      const [status, code] = answers[index++] ?? [500, 'internal_error'];
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ code, message: code }));
    });
    const pets = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: API_KEY });
    for (const [status, code] of answers) {
      expect(await thrown(pets.createPet(REX))).toMatchObject({ status, code });
    }
    expect(server.requests).toHaveLength(3);
  });
});

describe('neverSent: what fetch says about a request that never went out', () => {
  const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });
  const coded = (code: string) => Object.assign(new Error(code), { code });
  it('refused, unresolved, or a connect timeout: never sent', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']) {
      expect(neverSent(fetchFailed(coded(code))), code).toBe(true);
    }
    // Every address of a name refused (Node's happy eyeballs).
    const all = new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], 'refused');
    expect(neverSent(fetchFailed(all))).toBe(true);
  });
  it('anything else may have been sent: a reset, a socket closed, a browser TypeError', () => {
    for (const code of ['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'EHOSTUNREACH']) {
      expect(neverSent(fetchFailed(coded(code))), code).toBe(false);
    }
    const some = new AggregateError([coded('ECONNREFUSED'), coded('ECONNRESET')], 'mixed');
    expect(neverSent(fetchFailed(some))).toBe(false);
    expect(neverSent(new TypeError('Failed to fetch'))).toBe(false);
    expect(neverSent(undefined)).toBe(false);
  });
});
