import type { PetInput, PetStorage } from '@petstore/core';
import { StorageUnavailableError } from '@petstore/core';
import type pg from 'pg';
import { expect } from 'vitest';

/** Holds ACCESS EXCLUSIVE locks on pets and orders until `release()`: every statement on them waits. */
export async function lockTables(
  admin: pg.Pool,
  schema: string,
): Promise<{ release(): Promise<void> }> {
  const client = await admin.connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE "${schema}".pets, "${schema}".orders IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await client.query('COMMIT');
      client.release();
    },
  };
}

/** One call of every storage method, by name, each creating `pet` where it creates one. */
export function everyStorageCall(
  storage: PetStorage,
  pet: PetInput,
): Array<[string, () => Promise<unknown>]> {
  return [
    ['createPet', () => storage.createPet(pet)],
    [
      'createPetIdempotent',
      () =>
        storage.createPetIdempotent(pet, {
          scope: 's',
          key: pet.name,
          fingerprint: 'f',
          retentionMs: 1000,
        }),
    ],
    ['getPet', () => storage.getPet(1)],
    ['listPets', () => storage.listPets({ limit: 21 })],
    ['listPets by status', () => storage.listPets({ limit: 21, status: 'sold', afterId: 5 })],
    [
      'createOrder',
      () =>
        storage.createOrder({
          petId: 1,
          quantity: 1,
          shipDate: '2030-01-01T00:00:00.000Z',
          status: 'placed',
          complete: false,
        }),
    ],
    ['listOrders', () => storage.listOrders({ limit: 21 })],
  ];
}

/**
 * Every storage method, stuck behind a lock, is cancelled by the server (57014 query_canceled)
 * once `queryTimeoutMillis` has passed: before the client-side backstop (at
 * `connectionTimeoutMillis + queryTimeoutMillis + 1 s`).
 */
export async function expectServerCancelsEveryMethod(
  storage: PetStorage,
  withinMillis: number,
): Promise<void> {
  const calls = everyStorageCall(storage, { name: 'stuck', categoryId: 1, status: 'sold' });
  const started = Date.now();
  const outcomes = await Promise.all(
    calls.map(async ([name, call]) => {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      const cause = error instanceof StorageUnavailableError ? error.cause : error;
      const code = cause instanceof Error ? Reflect.get(cause, 'code') : undefined;
      return `${name}: ${error instanceof StorageUnavailableError ? 'unavailable' : 'resolved or other'}, ${String(code ?? (cause instanceof Error ? cause.message : cause))}`;
    }),
  );
  expect(outcomes).toEqual(calls.map(([name]) => `${name}: unavailable, 57014`));
  expect(Date.now() - started).toBeLessThan(withinMillis);
}
