import {
  type IdempotencyClaim,
  type IdempotentCreateResult,
  type OrderInput,
  type PetInput,
  type PetStorage,
  StorageUnavailableError,
} from '@petstore/core';
import { IdempotencyLedger } from './idempotency-ledger.js';
import { OrderLog } from './order-log.js';
import { PetTable } from './pet-table.js';

export interface MemoryStorageOptions {
  /** Rows to start with, created in this order (ids 1, 2, ...). */
  readonly seed?: {
    readonly pets?: readonly PetInput[];
    readonly orders?: readonly OrderInput[];
  };
  /** Clock for Idempotency-Key retention, in milliseconds. Default `Date.now`; tests pass their own. */
  readonly now?: () => number;
  /**
   * The most Idempotency-Key claims kept at once. Default 100,000 (about 30 MB). When that many
   * are live, a create with a new key is refused as unavailable (503, `Retry-After` until the
   * oldest expires, at most a minute), while retries of the keys held still replay: a full
   * ledger never forgets a key early, which could turn a retry into a second pet.
   */
  readonly maxIdempotencyKeys?: number;
}

export const DEFAULT_MAX_IDEMPOTENCY_KEYS = 100_000;
/** A full ledger asks clients back within this, whenever the oldest claim expires. */
const MAX_RETRY_AFTER_SECONDS = 60;

export interface Tables {
  readonly pets: PetTable;
  readonly orders: OrderLog;
  readonly claims: IdempotencyLedger;
}

/**
 * One critical section, all synchronous: purge, look up, insert, record. No await
 * in between, so two calls can never both see the key absent: in memory a claim
 * is never `in_flight`. The claim is recorded only after the insert succeeded.
 */
function createIdempotent(
  tables: Tables,
  input: PetInput,
  claim: IdempotencyClaim,
  now: number,
): IdempotentCreateResult {
  if (!Number.isSafeInteger(claim.retentionMs) || claim.retentionMs < 1) {
    throw new RangeError(
      `retentionMs must be a positive safe integer, got ${String(claim.retentionMs)}`,
    );
  }
  tables.claims.purge(now);
  const found = tables.claims.lookup(claim, now);
  if (found.kind === 'mismatch') return { kind: 'fingerprint_mismatch' };
  if (found.kind === 'match') {
    const pet = tables.pets.get(found.petId);
    // Pets are never deleted, so a live claim always has its pet.
    if (pet === undefined) throw new Error(`memory storage: claimed pet ${found.petId} is missing`);
    return { kind: 'replayed', pet };
  }
  if (tables.claims.full) {
    const seconds = Math.ceil(tables.claims.msUntilRoom(now) / 1000);
    throw new StorageUnavailableError(
      `memory storage: ${tables.claims.maxEntries} Idempotency-Key claims held (maxIdempotencyKeys)`,
      { retryAfterSeconds: Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds)) },
    );
  }
  const pet = tables.pets.insert(input);
  tables.claims.record(claim, pet.id, now);
  return { kind: 'created', pet };
}

/**
 * Wraps tables in the async port. Every method body is synchronous, so each call
 * is one critical section: concurrent calls can never interleave between reading
 * and taking the next id. After `close()` the tables are dropped (memory is freed)
 * and every call rejects with an Error saying the storage is closed.
 * Exported for tests that need tables starting near the id ceiling; not public.
 */
export function memoryStorageOver(tables: Tables, now: () => number = Date.now): PetStorage {
  let open: Tables | undefined = tables;
  const use = (): Tables => {
    if (open === undefined) throw new Error('memory storage is closed');
    return open;
  };
  return {
    createPet: async (input) => use().pets.insert(input),
    createPetIdempotent: async (input, claim) => createIdempotent(use(), input, claim, now()),
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
  const maxKeys = options.maxIdempotencyKeys ?? DEFAULT_MAX_IDEMPOTENCY_KEYS;
  if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
    throw new RangeError(`maxIdempotencyKeys must be a positive integer, got ${String(maxKeys)}`);
  }
  const tables: Tables = {
    pets: new PetTable(),
    orders: new OrderLog(),
    claims: new IdempotencyLedger(maxKeys),
  };
  for (const pet of options.seed?.pets ?? []) tables.pets.insert(pet);
  for (const order of options.seed?.orders ?? []) tables.orders.insert(order);
  return memoryStorageOver(tables, options.now);
}
