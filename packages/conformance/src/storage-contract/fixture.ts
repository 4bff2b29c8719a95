import type { PageQuery, PetPageQuery, PetStorage } from '@petstore/core';
import {
  type Order,
  type OrderInput,
  PET_STATUSES,
  type Pet,
  type PetInput,
  type PetStatus,
} from '@petstore/core';
import { expect } from 'vitest';

/** What `create()` hands the suite: a fresh, empty storage, and how to dispose of what it used. */
export interface StorageFixture {
  readonly storage: PetStorage;
  /** Runs after the suite has closed `storage`: drop a schema, stop a server, delete a file. */
  readonly cleanup?: () => Promise<void>;
}

export type CreateFixture = () => Promise<StorageFixture> | StorageFixture;

/** A test body that receives its own fresh storage. */
export type StorageCase = (storage: PetStorage) => Promise<void>;

/** Turns a case body into a vitest test function that gets a fresh storage (`withFreshStorage`). */
export type Use = (body: StorageCase) => () => Promise<void>;

/**
 * Wraps a case so it gets a storage of its own and always releases it, pass or fail.
 * Every case starts from an empty store, so no case depends on another's order or data.
 */
export const withFreshStorage =
  (create: CreateFixture) =>
  (body: StorageCase): (() => Promise<void>) =>
  async () => {
    const fixture = await create();
    let failure: { error: unknown } | undefined;
    try {
      await body(fixture.storage);
    } catch (error) {
      failure = { error };
    }
    // Always release; report the first failure, so a failing close() never hides the case's own.
    try {
      await fixture.storage.close();
    } catch (error) {
      failure ??= { error };
    }
    try {
      await fixture.cleanup?.();
    } catch (error) {
      failure ??= { error };
    }
    if (failure !== undefined) throw failure.error;
  };

const PET_KEYS = ['id', 'name', 'categoryId', 'status'] as const;
const ORDER_KEYS = ['id', 'petId', 'quantity', 'shipDate', 'status', 'complete'] as const;

/** A valid pet input; `n` varies the name, category and (cycling) the status. */
export const petInput = (n: number, overrides: Partial<PetInput> = {}): PetInput => ({
  name: `pet-${n}`,
  categoryId: (n % 7) + 1,
  status: PET_STATUSES[n % PET_STATUSES.length] ?? 'available',
  ...overrides,
});

export const orderInput = (
  petId: number,
  n: number,
  overrides: Partial<OrderInput> = {},
): OrderInput => ({
  petId,
  quantity: n + 1,
  // Canonical `toISOString` form, which a timestamp column reproduces exactly.
  shipDate: new Date(Date.UTC(2030, 0, 1 + (n % 28), 12, 30, 15, 250)).toISOString(),
  status: (['placed', 'approved', 'delivered'] as const)[n % 3] ?? 'placed',
  complete: n % 2 === 0,
  ...overrides,
});

/** Exactly the fields of a Pet, in the contract's key order, with these values. */
export const expectPet = (actual: unknown, expected: Pet): void => {
  expect(actual).toStrictEqual(expected);
  expect(Object.keys(actual as object)).toEqual([...PET_KEYS]);
};

export const expectOrder = (actual: unknown, expected: Order): void => {
  expect(actual).toStrictEqual(expected);
  expect(Object.keys(actual as object)).toEqual([...ORDER_KEYS]);
};

export const createPets = async (
  storage: PetStorage,
  inputs: readonly PetInput[],
): Promise<Pet[]> => {
  const pets: Pet[] = [];
  // One after another: creation order is the order the contract checks ids against.
  for (const input of inputs) pets.push(await storage.createPet(input));
  return pets;
};

/** Walks every page to the end, as a client following `rel="next"` would. Bounded. */
export const listAll = async <Row extends { id: number }>(
  list: (query: PageQuery) => Promise<Row[]>,
  limit: number,
  maxPages = 10_000,
): Promise<Row[]> => {
  const rows: Row[] = [];
  let afterId: number | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const batch = await list(afterId === undefined ? { limit } : { limit, afterId });
    rows.push(...batch);
    const last = batch.at(-1);
    if (batch.length < limit || last === undefined) return rows;
    afterId = last.id;
  }
  throw new Error(`listing did not end within ${maxPages} pages of ${limit}`);
};

export const listAllPets = (
  storage: PetStorage,
  limit: number,
  status?: PetStatus,
): Promise<Pet[]> =>
  listAll((query) => {
    const petQuery: PetPageQuery = status === undefined ? query : { ...query, status };
    return storage.listPets(petQuery);
  }, limit);

export const ids = (rows: readonly { id: number }[]): number[] => rows.map((row) => row.id);

export const expectStrictlyIncreasing = (values: readonly number[]): void => {
  for (let i = 1; i < values.length; i += 1) {
    const previous = values[i - 1] ?? Number.NaN;
    const current = values[i] ?? Number.NaN;
    if (!(current > previous)) {
      expect.fail(`ids not strictly increasing at position ${i}: ${previous} then ${current}`);
    }
  }
};

export const expectValidId = (id: unknown): void => {
  expect(Number.isSafeInteger(id)).toBe(true);
  expect(id).toBeGreaterThanOrEqual(1);
};
