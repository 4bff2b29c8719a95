import type { OrderInput, PetInput, PetStorage } from '@petstore/core';
import { OrderLog } from './order-log.js';
import { PetTable } from './pet-table.js';

export interface MemoryStorageOptions {
  /** Rows to start with, created in this order (ids 1, 2, ...). */
  readonly seed?: {
    readonly pets?: readonly PetInput[];
    readonly orders?: readonly OrderInput[];
  };
}

interface Tables {
  readonly pets: PetTable;
  readonly orders: OrderLog;
}

/**
 * Wraps tables in the async port. Every method body is synchronous, so each call
 * is one critical section: concurrent calls can never interleave between reading
 * and taking the next id. After `close()` the tables are dropped (memory is freed)
 * and every call rejects with an Error saying the storage is closed.
 * Exported for tests that need tables starting near the id ceiling; not public.
 */
export function memoryStorageOver(tables: Tables): PetStorage {
  let open: Tables | undefined = tables;
  const use = (): Tables => {
    if (open === undefined) throw new Error('memory storage is closed');
    return open;
  };
  return {
    createPet: async (input) => use().pets.insert(input),
    getPet: async (id) => use().pets.get(id),
    listPets: async (query) => use().pets.page(query),
    createOrder: async (input) => use().orders.insert(input),
    listOrders: async (query) => use().orders.page(query),
    close: async () => {
      open = undefined;
    },
  };
}

/**
 * A `PetStorage` kept in this process's memory: for tests, demos and
 * single-process services. Pages cost O(limit + log n) with or without the
 * status filter; a pet costs a few dozen bytes plus its name.
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): PetStorage {
  const tables: Tables = { pets: new PetTable(), orders: new OrderLog() };
  for (const pet of options.seed?.pets ?? []) tables.pets.insert(pet);
  for (const order of options.seed?.orders ?? []) tables.orders.insert(order);
  return memoryStorageOver(tables);
}
