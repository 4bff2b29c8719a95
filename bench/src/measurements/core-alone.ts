import type { PetStoreRequest } from '@petstore/core';
import type { BenchConfig } from '../config.js';
import { AUTHORIZATION, CREATE_BODY } from '../fixtures.js';
import type { Progress } from '../progress.js';
import type { CoreAlone } from '../results.js';
import { benchStore, seededMemoryStorage } from '../servers/ours.js';
import { median } from '../stats.js';

const createBody = Buffer.from(CREATE_BODY);

/** The same two requests the HTTP runs send, as the adapters hand them to the core. */
export const coreRequests: Record<'list' | 'create', () => PetStoreRequest> = {
  list: () => ({
    method: 'GET',
    path: '/pets',
    query: 'limit=20',
    headers: { authorization: AUTHORIZATION },
    basePath: '/v1',
  }),
  create: () => ({
    method: 'POST',
    path: '/pets',
    query: '',
    headers: {
      authorization: AUTHORIZATION,
      'content-type': 'application/json',
      'content-length': String(createBody.byteLength),
    },
    body: createBody,
    basePath: '/v1',
  }),
};

/**
 * `handle()` calls per second, one after another (as one connection would),
 * bounded by time and by count. No HTTP: what is left is core + memory storage.
 */
export async function measureCoreAlone(
  config: BenchConfig,
  progress: Progress,
): Promise<CoreAlone[]> {
  const { rounds, secondsPerRound, maxCalls } = config.core;
  const store = benchStore(await seededMemoryStorage());
  const expected = { list: 200, create: 201 };
  const results: CoreAlone[] = [];
  for (const operation of ['list', 'create'] as const) {
    const request = coreRequests[operation];
    const first = await store.handle(request());
    if (first.status !== expected[operation]) {
      throw new Error(
        `core ${operation}: expected ${expected[operation]}, got ${first.status} ${first.body}`,
      );
    }
    const rates: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const started = performance.now();
      const deadline = started + secondsPerRound * 1000;
      let calls = 0;
      let failures = 0;
      // Checking the clock every 256 calls keeps its cost out of the figure.
      while (calls < maxCalls && ((calls & 255) !== 0 || performance.now() < deadline)) {
        const response = await store.handle(request());
        if (response.status !== expected[operation]) failures++;
        calls++;
      }
      const seconds = (performance.now() - started) / 1000;
      if (failures > 0) throw new Error(`core ${operation}: ${failures} of ${calls} calls failed`);
      rates.push(calls / seconds);
      progress.done(secondsPerRound);
      progress.log(
        `core alone: ${operation} round ${round}/${rounds}: ${Math.round(calls / seconds)} calls/s`,
      );
    }
    const rate = median(rates);
    results.push({
      operation,
      callsPerSecond: rates,
      medianCallsPerSecond: rate,
      microsPerCall: 1e6 / rate,
    });
  }
  await store.options.storage.close();
  return results;
}
