import { MAX_ID, type PetInput } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { IdempotencyLedger } from '../src/idempotency-ledger.js';
import { createMemoryStorage } from '../src/index.js';
import { memoryStorageOver } from '../src/memory-storage.js';
import { OrderLog } from '../src/order-log.js';
import { PetTable } from '../src/pet-table.js';

const rex: PetInput = { name: 'Rex', categoryId: 1, status: 'available' };
const order = {
  petId: 1,
  quantity: 1,
  shipDate: '2030-01-01T00:00:00.000Z',
  status: 'placed',
  complete: false,
} as const;

describe('createMemoryStorage', () => {
  it('starts with the seed, in order, ids from 1', async () => {
    const storage = createMemoryStorage({
      seed: {
        pets: [rex, { name: 'Tom', categoryId: 2, status: 'sold' }],
        orders: [order],
      },
    });
    expect(await storage.listPets({ limit: 10 })).toStrictEqual([
      { id: 1, ...rex },
      { id: 2, name: 'Tom', categoryId: 2, status: 'sold' },
    ]);
    expect(await storage.listOrders({ limit: 10 })).toStrictEqual([{ id: 1, ...order }]);
    expect(await storage.createPet(rex)).toStrictEqual({ id: 3, ...rex });
  });

  it('after close every call rejects with a clear Error, and close stays harmless', async () => {
    const storage = createMemoryStorage({ seed: { pets: [rex] } });
    await storage.close();
    const closed = /memory storage is closed/;
    await expect(storage.createPet(rex)).rejects.toThrow(closed);
    const claim = { scope: 's', key: 'k', fingerprint: 'f', retentionMs: 1000 };
    await expect(storage.createPetIdempotent(rex, claim)).rejects.toThrow(closed);
    await expect(storage.getPet(1)).rejects.toThrow(closed);
    await expect(storage.listPets({ limit: 1 })).rejects.toThrow(closed);
    await expect(storage.createOrder(order)).rejects.toThrow(closed);
    await expect(storage.listOrders({ limit: 1 })).rejects.toThrow(closed);
    await expect(storage.close()).resolves.toBeUndefined();
  });

  it('rejects an unknown status as a bug and stores nothing', async () => {
    const storage = createMemoryStorage();
    const bad = { ...rex, status: 'lost' } as unknown as PetInput;
    await expect(storage.createPet(bad)).rejects.toThrow(TypeError);
    await expect(storage.listPets({ limit: 1, status: bad.status })).rejects.toThrow(TypeError);
    expect(await storage.listPets({ limit: 10 })).toEqual([]);
    expect(await storage.createPet(rex)).toMatchObject({ id: 1 });
  });

  it('rejects page queries the core never sends (fractional or negative limit, fractional afterId)', async () => {
    const storage = createMemoryStorage();
    await expect(storage.listPets({ limit: 1.5 })).rejects.toThrow(RangeError);
    await expect(storage.listPets({ limit: -1 })).rejects.toThrow(RangeError);
    await expect(storage.listPets({ limit: 5, afterId: 0.5 })).rejects.toThrow(RangeError);
    await expect(storage.listOrders({ limit: Number.NaN })).rejects.toThrow(RangeError);
  });
});

describe('id ceiling', () => {
  it('pets: the id 2^53 − 1 is the last one; the next create rejects and changes nothing', async () => {
    const pets = new PetTable(MAX_ID - 1);
    const storage = memoryStorageOver({
      pets,
      orders: new OrderLog(),
      claims: new IdempotencyLedger(),
    });
    expect((await storage.createPet(rex)).id).toBe(MAX_ID - 1);
    expect((await storage.createPet(rex)).id).toBe(MAX_ID);
    await expect(storage.createPet(rex)).rejects.toThrow(/exceed 9007199254740991/);
    expect(pets.size).toBe(2);
    expect(await storage.getPet(MAX_ID)).toStrictEqual({ id: MAX_ID, ...rex });
    expect((await storage.listPets({ limit: 10, afterId: MAX_ID - 2 })).map((p) => p.id)).toEqual([
      MAX_ID - 1,
      MAX_ID,
    ]);
    expect(await storage.listPets({ limit: 10, afterId: MAX_ID, status: 'available' })).toEqual([]);
  });

  it('orders: the same ceiling', async () => {
    const orders = new OrderLog(MAX_ID);
    const storage = memoryStorageOver({
      pets: new PetTable(),
      orders,
      claims: new IdempotencyLedger(),
    });
    expect((await storage.createOrder(order)).id).toBe(MAX_ID);
    await expect(storage.createOrder(order)).rejects.toThrow(/exceed 9007199254740991/);
    expect(orders.size).toBe(1);
  });
});
