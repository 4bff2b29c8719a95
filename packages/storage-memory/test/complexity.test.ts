import type { PetStatus, PetStorage } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '../src/index.js';

/*
 * A page must cost O(limit + log n), never a scan. Timing one store alone says
 * little on a shared machine, so this compares the SAME queries on a 1,000-pet
 * and a 1,000,000-pet store inside one test: batches alternate between the two
 * stores (so machine load hits both alike) and the median batch is compared.
 * O(limit + log n) keeps the ratio near 1 (a few x at most from cache misses);
 * a scan over all pets makes it about 1000x. The bar, 20x, sits far from both.
 */

const SMALL = 1_000;
const LARGE = 1_000_000;
const BATCH = 200;
const ROUNDS = 15;
const MAX_RATIO = 20;

/** Mostly available, every 100th sold, and one single pending pet (id 2). */
const statusOf = (n: number): PetStatus =>
  n === 2 ? 'pending' : n % 100 === 0 ? 'sold' : 'available';

async function fill(size: number): Promise<PetStorage> {
  const storage = createMemoryStorage();
  for (let n = 1; n <= size; n += 1) {
    await storage.createPet({ name: `pet-${n}`, categoryId: (n % 50) + 1, status: statusOf(n) });
  }
  return storage;
}

type Query = (storage: PetStorage, size: number) => Promise<unknown>;

/** Each query returns the same number of rows on both stores; a scan would read ~all pets. */
const queries: Record<string, Query> = {
  'unfiltered page near the end': (s, size) => s.listPets({ limit: 21, afterId: size - 40 }),
  'rare status from the middle': (s, size) =>
    s.listPets({ limit: 5, afterId: size / 2, status: 'sold' }),
  'status with no pets after afterId': (s) =>
    s.listPets({ limit: 21, afterId: 2, status: 'pending' }),
  'getPet near the end': (s, size) => s.getPet(size - 1),
};

async function batchMs(query: Query, storage: PetStorage, size: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < BATCH; i += 1) await query(storage, size);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

describe('page cost does not grow with the number of pets', () => {
  it(`a page at ${LARGE} pets costs under ${MAX_RATIO}x the same page at ${SMALL}`, {
    timeout: 120_000,
  }, async () => {
    const small = await fill(SMALL);
    const large = await fill(LARGE);
    try {
      for (const [label, query] of Object.entries(queries)) {
        // Same answers shape on both stores, so the comparison is like for like.
        const [a, b] = [await query(small, SMALL), await query(large, LARGE)];
        expect(Array.isArray(a) ? a.length : 1, label).toBe(Array.isArray(b) ? b.length : 1);
        for (let i = 0; i < 3; i += 1) {
          await batchMs(query, small, SMALL);
          await batchMs(query, large, LARGE);
        }
        const smallTimes: number[] = [];
        const largeTimes: number[] = [];
        for (let round = 0; round < ROUNDS; round += 1) {
          smallTimes.push(await batchMs(query, small, SMALL));
          largeTimes.push(await batchMs(query, large, LARGE));
        }
        const ratio = median(largeTimes) / median(smallTimes);
        console.info(
          `${label}: ${((median(smallTimes) * 1e3) / BATCH).toFixed(2)} µs at ${SMALL}, ` +
            `${((median(largeTimes) * 1e3) / BATCH).toFixed(2)} µs at ${LARGE}, ratio ${ratio.toFixed(2)}`,
        );
        expect(ratio, label).toBeLessThan(MAX_RATIO);
      }
    } finally {
      await Promise.all([small.close(), large.close()]);
    }
  });
});
