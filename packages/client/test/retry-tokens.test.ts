import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  createPetStoreClient,
  DEFAULT_RETRY_TOKENS,
  type PetStoreClient,
  PetStoreError,
  type RetryEvent,
} from '../src/index.js';
import {
  rejection,
  stubServersClosedAfterEach,
  thrown,
  unavailable,
} from './support/stub-server.js';

// The retry token bucket of each client, against real sockets on 127.0.0.1: many clients
// facing a service that answers 503 to everything add at most a tenth to what they send, a
// lone failure is still retried, and successes refill the bucket once the service is back.

const API_KEY = 'client-test-key-0123456789';
const REX = { name: 'Rex', categoryId: 1 };
const serve = stubServersClosedAfterEach();

/** 201 for a create, 200 with an empty page for a read. */
function answered(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.on('end', () => {
    const create = request.method === 'POST';
    response.writeHead(create ? 201 : 200, { 'content-type': 'application/json' });
    response.end(create ? JSON.stringify({ id: 7, status: 'available', ...REX }) : '[]');
  });
}

/**
 * `calls` calls (creates and reads in turn), `concurrency` at a time, each awaited to its end;
 * every one must fail. Returns the errors.
 */
async function failingCalls(
  client: PetStoreClient,
  calls: number,
  concurrency: number,
): Promise<PetStoreError[]> {
  const errors: PetStoreError[] = [];
  let next = 0;
  const loop = async () => {
    while (next < calls) {
      const index = next++;
      errors.push(await thrown(index % 2 === 0 ? client.createPet(REX) : client.listPets()));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return errors;
}

describe('the retry token bucket (retryTokens)', () => {
  it('25 clients with the defaults against sustained 503s: requests received / first attempts <= 1.1', async () => {
    const server = await serve((_request, response) => unavailable(response));
    const CLIENTS = 25;
    const CALLS = 1_200;
    const clients = Array.from({ length: CLIENTS }, () =>
      createPetStoreClient({ baseUrl: server.baseUrl, apiKey: API_KEY }),
    );
    const started = performance.now();
    const errors = (
      await Promise.all(clients.map((client) => failingCalls(client, CALLS, 25)))
    ).flat();
    const seconds = (performance.now() - started) / 1000;

    const firstAttempts = CLIENTS * CALLS;
    const ratio = server.requests.length / firstAttempts;
    const codes: Record<string, number> = {};
    for (const error of errors) codes[error.code] = (codes[error.code] ?? 0) + 1;
    console.log(
      `${CLIENTS} clients, ${firstAttempts} calls against sustained 503s in ${seconds.toFixed(1)} s: ` +
        `${server.requests.length} requests received, ${ratio.toFixed(3)} per first attempt; ` +
        `thrown: ${JSON.stringify(codes)}`,
    );
    expect(ratio).toBeLessThanOrEqual(1.1);
    // Each client retried until its bucket ran out (100 retries of 10 tokens), no further (a
    // retry after a timeout, on a machine too busy to answer in time, costs 20).
    const { capacity, retryCost, timeoutRetryCost } = DEFAULT_RETRY_TOKENS;
    const retried = server.requests.length - firstAttempts;
    expect(retried).toBeLessThanOrEqual(CLIENTS * (capacity / retryCost));
    expect(retried).toBeGreaterThanOrEqual(CLIENTS * (capacity / timeoutRetryCost - 1));
    // A create stopped by the bucket is still one whose outcome is unknown, with its key.
    const creates = errors.filter((error) => error.code === 'outcome_unknown');
    expect(creates).toHaveLength(firstAttempts / 2);
    expect(creates.every((error) => error.idempotencyKey !== undefined)).toBe(true);
    const throttled = creates.filter((error) => error.message.includes('retry tokens'));
    expect(throttled.length).toBeGreaterThanOrEqual((firstAttempts / 2) * 0.95);
    // A read stopped by it throws its last failure: the service's 503 (or, on a machine too
    // busy to answer in time, a timeout or a lost connection).
    const reads = errors.filter((error) => error.code !== 'outcome_unknown');
    expect(reads).toHaveLength(firstAttempts / 2);
    const served503 = reads.filter((error) => error.code === 'service_unavailable');
    expect(served503.length).toBeGreaterThanOrEqual((firstAttempts / 2) * 0.95);
  }, 120_000);

  it('the same measurement without the bucket (retryTokens: false) sees every call retried', async () => {
    const server = await serve((_request, response) => unavailable(response));
    const client = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retryTokens: false,
      retryBudgetMs: 1_000,
    });
    await failingCalls(client, 40, 20);
    // Backoff from 100-200 ms within a 1 s budget: four or more attempts a call.
    expect(server.requests.length / 40).toBeGreaterThanOrEqual(3);
  });

  it('a lone 503 then a 201: retried, with the same Idempotency-Key', async () => {
    let answers = 0;
    const server = await serve((request, response) => {
      answers += 1;
      if (answers === 1) unavailable(response);
      else answered(request, response);
    });
    const retries: RetryEvent[] = [];
    const client = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      onRetry: (event) => retries.push(event),
    });
    expect(await client.createPet(REX)).toEqual({ id: 7, status: 'available', ...REX });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.idempotencyKey).toBe(server.requests[0]?.idempotencyKey);
    expect(retries.map((event) => event.reason)).toEqual(['service_unavailable']);
  });

  it('an empty bucket: a create whose attempt may have been stored still ends outcome_unknown with its key', async () => {
    const server = await serve((_request, response) => unavailable(response));
    // Room for one retry exactly.
    const client = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retryTokens: { capacity: 10, retryCost: 10 },
      retryBudgetMs: 60_000,
    });
    const first = await thrown(client.createPet(REX, { idempotencyKey: 'first-create' }));
    expect(server.requests.map((request) => request.idempotencyKey)).toEqual([
      'first-create',
      'first-create',
    ]);
    expect(first).toMatchObject({ code: 'outcome_unknown', idempotencyKey: 'first-create' });
    const second = await thrown(client.createPet(REX, { idempotencyKey: 'second-create' }));
    expect(server.requests).toHaveLength(3);
    expect(second).toMatchObject({
      status: 503,
      code: 'outcome_unknown',
      idempotencyKey: 'second-create',
      requestId: 'stub-503',
    });
    expect(second.message).toContain('retry tokens');
    expect(second.cause).toMatchObject({ status: 503, code: 'service_unavailable' });
    // A read stopped by the bucket throws the service's own answer.
    expect(await thrown(client.listPets())).toMatchObject({
      status: 503,
      code: 'service_unavailable',
    });
    expect(server.requests).toHaveLength(4);
  });

  it('once the service recovers, successes refill the bucket: one retry per ten 2xx answers', async () => {
    let down = true;
    let failOnce = false;
    const server = await serve((request, response) => {
      if (down) return unavailable(response);
      if (failOnce) {
        failOnce = false;
        return unavailable(response);
      }
      answered(request, response);
    });
    const client = createPetStoreClient({ baseUrl: server.baseUrl, apiKey: API_KEY });
    // An outage drains the bucket: 1000 tokens, 100 retries.
    await failingCalls(client, 120, 25);
    expect(server.requests).toHaveLength(120 + 100);
    down = false;

    const loneFailure = async () => {
      failOnce = true;
      const before = server.requests.length;
      const outcome = await client.listPets().then(
        () => 'retried',
        (error: unknown) => (error instanceof PetStoreError ? error.code : 'other'),
      );
      return { outcome, requests: server.requests.length - before };
    };
    // Nine successes give back nine tokens: a retry costs ten, so a lone 503 is not retried.
    for (let index = 0; index < 9; index++) await client.listPets();
    expect(await loneFailure()).toEqual({ outcome: 'service_unavailable', requests: 1 });
    // The tenth: retried again.
    await client.createPet(REX);
    expect(await loneFailure()).toEqual({ outcome: 'retried', requests: 2 });
    // That retry took the ten tokens (its success gave one back): not again until nine more.
    expect(await loneFailure()).toEqual({ outcome: 'service_unavailable', requests: 1 });
  }, 60_000);

  it("a call cancelled while it waits to retry gives the retry's tokens back", async () => {
    const server = await serve((_request, response) => unavailable(response));
    const client = createPetStoreClient({
      baseUrl: server.baseUrl,
      apiKey: API_KEY,
      retryTokens: { capacity: 10 },
    });
    const controller = new AbortController();
    const pending = rejection(client.listPets({}, { signal: controller.signal }));
    await server.received(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
    // The one retry the bucket holds is still there.
    await thrown(client.listPets());
    expect(server.requests).toHaveLength(3);
  });

  it('checks its settings', () => {
    const make = (retryTokens: unknown) =>
      createPetStoreClient({
        baseUrl: 'http://127.0.0.1:1/v1',
        apiKey: API_KEY,
        retryTokens: retryTokens as false,
      });
    for (const bad of [{ capacity: 0 }, { retryCost: 1.5 }, { successRefund: -1 }]) {
      expect(() => make(bad)).toThrow(TypeError);
    }
    expect(() => make({ capacity: 10, successRefund: 0 })).not.toThrow();
    expect(() => make(false)).not.toThrow();
    expect(Object.isFrozen(DEFAULT_RETRY_TOKENS)).toBe(true);
  });
});
