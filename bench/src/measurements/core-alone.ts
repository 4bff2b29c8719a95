import {
  DEFAULT_API_PATH,
  type PetInput,
  type PetStorage,
  type PetStoreRequest,
} from '@petstore/core';
import type { BenchConfig } from '../config.js';
import { AUTHORIZATION, CREATE_BODY } from '../fixtures.js';
import type { Progress } from '../progress.js';
import type { CoreAlone } from '../results.js';
import { loopStore, seededMemoryStorage } from '../servers/ours.js';
import { median } from '../stats.js';

const createBody = Buffer.from(CREATE_BODY);

/** The same two requests the HTTP runs send, as the adapters hand them to the core. */
export const coreRequests: Record<'list' | 'create', () => PetStoreRequest> = {
  list: () => ({
    method: 'GET',
    path: '/pets',
    query: 'limit=20',
    headers: { authorization: AUTHORIZATION },
    publicPath: DEFAULT_API_PATH,
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
    publicPath: DEFAULT_API_PATH,
  }),
};

/** A loop body: one call, resolving to whether it gave the expected answer. */
type Call = () => Promise<boolean>;

/**
 * What the core cannot avoid doing for the same answer, with no core at all:
 * the storage's own `listPets` for the page (the 21 rows `handle()` asks for,
 * the extra one telling whether a next page exists) and `JSON.stringify` of
 * the 20 pets; or `JSON.parse` of the body, `createPet` and `JSON.stringify`
 * of the pet.
 */
function baselineCall(storage: PetStorage, operation: 'list' | 'create'): Call {
  if (operation === 'list') {
    return async () => {
      const rows = await storage.listPets({ limit: 21 });
      return JSON.stringify(rows.slice(0, 20)).length > 0;
    };
  }
  return async () => {
    const pet = await storage.createPet(JSON.parse(CREATE_BODY) as PetInput);
    return JSON.stringify(pet).length > 0;
  };
}

/** Calls per second, one after another (as one connection would), bounded by time and count. */
async function callRate(call: Call, seconds: number, maxCalls: number, label: string) {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let calls = 0;
  let failures = 0;
  // Checking the clock every 256 calls keeps its cost out of the figure.
  while (calls < maxCalls && ((calls & 255) !== 0 || performance.now() < deadline)) {
    if (!(await call())) failures++;
    calls++;
  }
  if (failures > 0) throw new Error(`${label}: ${failures} of ${calls} calls failed`);
  return calls / ((performance.now() - started) / 1000);
}

/**
 * `handle()` calls per second, and beside it the baseline above on the same
 * storage, rounds interleaved (handle, baseline, baseline, handle, ...) so drift
 * falls on both alike. No HTTP: what is left is core + memory storage.
 */
export async function measureCoreAlone(
  config: BenchConfig,
  progress: Progress,
): Promise<CoreAlone[]> {
  const { rounds, secondsPerRound, maxCalls } = config.core;
  const storage = await seededMemoryStorage();
  const store = loopStore(storage);
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
    const sides = {
      handle: async () => (await store.handle(request())).status === expected[operation],
      baseline: baselineCall(storage, operation),
    };
    const rates = { handle: [] as number[], baseline: [] as number[] };
    for (let round = 1; round <= rounds; round++) {
      const order =
        round % 2 === 1 ? (['handle', 'baseline'] as const) : (['baseline', 'handle'] as const);
      for (const side of order) {
        const rate = await callRate(
          sides[side],
          secondsPerRound,
          maxCalls,
          `core ${operation} ${side}`,
        );
        rates[side].push(rate);
        progress.done(secondsPerRound);
        progress.log(
          `core alone: ${operation} ${side} round ${round}/${rounds}: ${Math.round(rate)} calls/s`,
        );
      }
    }
    const rate = median(rates.handle);
    const baselineRate = median(rates.baseline);
    results.push({
      operation,
      callsPerSecond: rates.handle,
      medianCallsPerSecond: rate,
      microsPerCall: 1e6 / rate,
      baselineCallsPerSecond: rates.baseline,
      baselineMicrosPerCall: 1e6 / baselineRate,
      ratio: baselineRate / rate,
    });
  }
  await storage.close();
  return results;
}
