import { describe } from 'vitest';
import { type CreateFixture, withFreshStorage } from './storage-contract/fixture.js';
import { registerIdempotencyCases } from './storage-contract/idempotency.js';
import { registerLifecycleCases } from './storage-contract/lifecycle.js';
import { registerListingCases } from './storage-contract/listing.js';
import { registerOrderCases } from './storage-contract/orders.js';
import { registerPetCases } from './storage-contract/pets.js';

export type { StorageFixture } from './storage-contract/fixture.js';

export interface StorageContractOptions {
  /** Name of the `describe` block, e.g. `'memory'` or `'postgres'`. */
  readonly name: string;
  /**
   * Called once per case: return a fresh, empty storage (and optionally a `cleanup`).
   * The suite closes the storage after each case, then calls `cleanup`.
   */
  readonly create: CreateFixture;
}

/**
 * Registers the storage contract as a vitest `describe` block: every rule of the
 * `PetStorage` port that can be checked from outside. A storage is conforming when
 * this passes:
 *
 * ```ts
 * import { runStorageContract } from '@petstore/conformance';
 * runStorageContract({ name: 'mine', create: async () => ({ storage: await createMine() }) });
 * ```
 */
export function runStorageContract(options: StorageContractOptions): void {
  const use = withFreshStorage(options.create);
  describe(options.name, () => {
    describe('pets', () => registerPetCases(use));
    describe('listPets', () => registerListingCases(use));
    describe('createPetIdempotent', () => registerIdempotencyCases(use));
    describe('orders', () => registerOrderCases(use));
    describe('lifecycle', () => registerLifecycleCases(use));
  });
}
