import { type IdempotencyClaim, MAX_ID, type PetInput } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { IdempotencyLedger } from '../src/idempotency-ledger.js';
import { createMemoryStorage } from '../src/index.js';
import { memoryStorageOver, type Tables } from '../src/memory-storage.js';
import { OrderLog } from '../src/order-log.js';
import { PetTable } from '../src/pet-table.js';

const rex: PetInput = { name: 'Rex', categoryId: 1, status: 'available' };

const claim = (key: string, retentionMs = 1000, fingerprint = 'f1'): IdempotencyClaim => ({
  scope: 'scope',
  key,
  fingerprint,
  retentionMs,
});

/** A storage over tables the test can inspect, on a clock the test moves by hand. */
function setup(pets = new PetTable()) {
  const clock = { now: 0 };
  const tables: Tables = { pets, orders: new OrderLog(), claims: new IdempotencyLedger() };
  const storage = memoryStorageOver(tables, () => clock.now);
  return { clock, tables, storage };
}

describe('createPetIdempotent in memory', () => {
  it('a claim lives exactly retentionMs: replays at expiry - 1 ms, is absent at expiry', async () => {
    const { clock, storage } = setup();
    clock.now = 10_000;
    const first = await storage.createPetIdempotent(rex, claim('k'));
    expect(first).toStrictEqual({ kind: 'created', pet: { id: 1, ...rex } });
    clock.now = 10_999;
    expect(await storage.createPetIdempotent(rex, claim('k'))).toStrictEqual({
      kind: 'replayed',
      pet: { id: 1, ...rex },
    });
    clock.now = 11_000;
    expect(await storage.createPetIdempotent(rex, claim('k'))).toStrictEqual({
      kind: 'created',
      pet: { id: 2, ...rex },
    });
  });

  it('the createMemoryStorage `now` option is the clock retention uses', async () => {
    let now = 0;
    const storage = createMemoryStorage({ now: () => now });
    await storage.createPetIdempotent(rex, claim('k', 60_000));
    now = 59_999;
    expect((await storage.createPetIdempotent(rex, claim('k', 60_000))).kind).toBe('replayed');
    now = 60_000;
    expect((await storage.createPetIdempotent(rex, claim('k', 60_000))).kind).toBe('created');
  });

  it('is never in_flight: 50 concurrent calls give one created and 49 replayed', async () => {
    const storage = createMemoryStorage();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => storage.createPetIdempotent(rex, claim('k'))),
    );
    const kinds = results.map((result) => result.kind);
    expect(kinds.filter((kind) => kind === 'created')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'replayed')).toHaveLength(49);
  });

  it('rejects a retentionMs the core never sends, storing nothing', async () => {
    const { tables, storage } = setup();
    for (const retentionMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(storage.createPetIdempotent(rex, claim('k', retentionMs))).rejects.toThrow(
        RangeError,
      );
    }
    expect(tables.pets.size).toBe(0);
    expect(tables.claims.size).toBe(0);
  });

  it('at the id ceiling the create rejects and the key stays free', async () => {
    const { tables, storage } = setup(new PetTable(MAX_ID));
    await storage.createPet(rex);
    await expect(storage.createPetIdempotent(rex, claim('k'))).rejects.toThrow(/exceed/);
    expect(tables.claims.size).toBe(0);
    expect(tables.pets.size).toBe(1);
  });
});

describe('purging expired claims', () => {
  it('is incremental: each call pops what has expired off the queue head, and only that', async () => {
    const { clock, tables, storage } = setup();
    // 1,000 claims recorded at t = 0..999, each kept 1,000 ms: they expire at t = 1,000..1,999.
    for (let t = 0; t < 1000; t += 1) {
      clock.now = t;
      await storage.createPetIdempotent(rex, claim(`k${t}`));
    }
    expect(tables.claims.size).toBe(1000);

    // At t = 1,500 the claims from t = 0..500 have expired: one call removes those 501.
    clock.now = 1500;
    await storage.createPetIdempotent(rex, claim('late'));
    expect(tables.claims.size).toBe(1000 - 501 + 1);
    // The survivors are still live: k501 replays.
    expect((await storage.createPetIdempotent(rex, claim('k501'))).kind).toBe('replayed');

    // Much later, one call clears the rest.
    clock.now = 10_000;
    await storage.createPetIdempotent(rex, claim('last'));
    expect(tables.claims.size).toBe(1);
    expect(tables.pets.size).toBe(1002);
  });

  it('stops at the first live claim: it never scans past the head', () => {
    const ledger = new IdempotencyLedger();
    // A long retention recorded first, a short one after it (not what one store does, but
    // it shows the purge looks only at the head).
    ledger.record(claim('long', 10_000), 1, 0);
    ledger.record(claim('short', 10), 2, 0);
    expect(ledger.purge(100)).toBe(0);
    expect(ledger.size).toBe(2);
    // The expired claim still waiting in the queue already counts as absent.
    expect(ledger.lookup(claim('short', 10), 100)).toStrictEqual({ kind: 'absent' });
    expect(ledger.lookup(claim('long', 10_000), 100)).toStrictEqual({ kind: 'match', petId: 1 });
    expect(ledger.purge(10_000)).toBe(2);
    expect(ledger.size).toBe(0);
  });

  it('a key re-claimed after expiry keeps its new claim when the old one is purged', () => {
    const ledger = new IdempotencyLedger();
    ledger.record(claim('k', 100), 1, 0);
    // Expired at 100 but not purged yet; the storage records the new claim over it.
    ledger.record(claim('k', 100, 'f2'), 2, 150);
    expect(ledger.purge(150)).toBe(0);
    expect(ledger.size).toBe(1);
    expect(ledger.lookup(claim('k', 100, 'f2'), 150)).toStrictEqual({ kind: 'match', petId: 2 });
    expect(ledger.purge(250)).toBe(1);
    expect(ledger.size).toBe(0);
  });

  it('keeps the queue compact under a steady stream: slots held stay near the live claims', () => {
    const ledger = new IdempotencyLedger();
    // 20,000 claims, one per ms, each kept 100 ms, purged as a storage call would.
    let maxSize = 0;
    let maxSlots = 0;
    for (let t = 0; t < 20_000; t += 1) {
      ledger.purge(t);
      ledger.record(claim(`k${t}`, 100), t + 1, t);
      maxSize = Math.max(maxSize, ledger.size);
      maxSlots = Math.max(maxSlots, ledger.queueSlots);
    }
    expect(maxSize).toBe(100);
    // 100 live claims plus popped slots, released once there are 1,024 of them (not 20,000).
    expect(maxSlots).toBeLessThanOrEqual(100 + 1024 + 1);
    expect(maxSlots).toBeGreaterThan(100);
  });
});
