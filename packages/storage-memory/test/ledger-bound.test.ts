import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isStorageUnavailable, type StorageUnavailableError } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { createMemoryStorage, DEFAULT_MAX_IDEMPOTENCY_KEYS } from '../src/index.js';

const pet = { name: 'Rex', categoryId: 1, status: 'available' } as const;
const claim = (key: string, retentionMs = 60_000) => ({
  scope: 'scope',
  key,
  fingerprint: 'f',
  retentionMs,
});

describe('the Idempotency-Key ledger has a bound (maxIdempotencyKeys)', () => {
  it('when full, a new key is refused as unavailable while held keys still replay', async () => {
    let clock = 0;
    const storage = createMemoryStorage({ maxIdempotencyKeys: 3, now: () => clock });
    for (const key of ['a', 'b', 'c']) {
      expect((await storage.createPetIdempotent(pet, claim(key))).kind).toBe('created');
    }
    const refused = await storage.createPetIdempotent(pet, claim('d')).catch((e: unknown) => e);
    expect(isStorageUnavailable(refused)).toBe(true);
    // Room comes when the oldest claim expires, in 60 s: the client is asked back then.
    expect((refused as StorageUnavailableError).retryAfterSeconds).toBe(60);
    expect(refused).toHaveProperty('message', expect.stringContaining('maxIdempotencyKeys'));
    // A retry of a held key is never refused, and never a second pet.
    const replay = await storage.createPetIdempotent(pet, claim('a'));
    expect(replay).toMatchObject({ kind: 'replayed', pet: { id: 1 } });
    expect(await storage.listPets({ limit: 10 })).toHaveLength(3);

    clock = 60_000; // a, b and c expire: room again
    expect((await storage.createPetIdempotent(pet, claim('d'))).kind).toBe('created');
    await storage.close();
  });

  it('defaults to 100,000 keys and refuses a bound that is not a positive integer', () => {
    expect(DEFAULT_MAX_IDEMPOTENCY_KEYS).toBe(100_000);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => createMemoryStorage({ maxIdempotencyKeys: bad })).toThrow(RangeError);
    }
  });

  it('a long run of new keys keeps the heap flat once the bound is reached', async () => {
    // A full collection before each reading, or garbage would hide the trend.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const storage = createMemoryStorage({ maxIdempotencyKeys: 5_000 });
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    let refused = 0;
    const run = async (from: number, to: number) => {
      for (let n = from; n < to; n++) {
        await storage
          .createPetIdempotent(pet, claim(`key-${n}-${'x'.repeat(40)}`))
          .catch(() => (refused += 1));
      }
    };
    await run(0, 10_000);
    const atBound = heap();
    await run(10_000, 60_000);
    const after = heap();
    console.log(
      `ledger bound 5,000: 60,000 new keys, ${refused} refused; heap ${(atBound / 2 ** 20).toFixed(1)} MiB at 10,000, ${(after / 2 ** 20).toFixed(1)} MiB at 60,000`,
    );
    expect(refused).toBe(55_000);
    // Without the bound the 50,000 extra claims and pets would add tens of MiB.
    expect(after - atBound).toBeLessThan(2 ** 20);
    await storage.close();
  });
});
