/**
 * The hand-written Fastify peer's own in-memory store: pets, orders and
 * Idempotency-Key claims, as a service that keeps its data in memory would
 * write them. No project package: the peer must stand on its own.
 */

import type { NewOrder, NewPet, Order, Pet, PetStatus } from './store.js';

export { PET_STATUSES } from './store.js';
// The peers' own model (store.ts): a hand-written codebase keeps one.
export type { NewOrder, NewPet, Order, Pet, PetStatus };

/** What a create under an Idempotency-Key came to. */
export type KeyedCreate =
  | { readonly kind: 'created'; readonly pet: Pet }
  | { readonly kind: 'replayed'; readonly pet: Pet }
  | { readonly kind: 'mismatch' }
  /** As many claims as the store keeps are live: come back when the oldest expires. */
  | { readonly kind: 'full'; readonly retryAfterSeconds: number };

/** How long a key is remembered (the contract: at least 24 hours). */
const RETENTION_MS = 24 * 60 * 60 * 1000;
/** The most claims kept at once: bounded memory, and never a live key forgotten early. */
const MAX_CLAIMS = 100_000;
const MAX_RETRY_AFTER_SECONDS = 60;

interface Claim {
  readonly pet: Pet;
  readonly fingerprint: string;
  readonly expiresAt: number;
}

/** Index of the first row with `id > afterId` in rows ascending by id: a binary search. */
function firstAfter(rows: readonly { readonly id: number }[], afterId: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((rows[middle]?.id ?? 0) <= afterId) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Rows are appended in id order and never deleted, so every listing is an
 * array ascending by id: a page is a binary search and a slice, O(limit + log n),
 * with or without the status filter (one array per status).
 */
export class PeerState {
  readonly #pets: Pet[] = [];
  readonly #byStatus: Readonly<Record<PetStatus, Pet[]>> = { available: [], pending: [], sold: [] };
  readonly #orders: Order[] = [];
  /** By scope and key, in recording order: with one retention, that is expiry order. */
  readonly #claims = new Map<string, Claim>();

  createPet(input: NewPet): Pet {
    const { name, categoryId, status } = input;
    const pet: Pet = { id: this.#pets.length + 1, name, categoryId, status };
    this.#pets.push(pet);
    this.#byStatus[status].push(pet);
    return pet;
  }

  /** Ids are 1, 2, ... in creation order: the pet with id `id` is at index `id - 1`. */
  getPet(id: number): Pet | undefined {
    return this.#pets[id - 1];
  }

  listPets(status: PetStatus | undefined, afterId: number | undefined, limit: number): Pet[] {
    const rows = status === undefined ? this.#pets : this.#byStatus[status];
    const start = firstAfter(rows, afterId ?? 0);
    return rows.slice(start, start + limit);
  }

  createOrder(input: NewOrder): Order {
    const { petId, quantity, shipDate, status, complete } = input;
    const order: Order = {
      id: this.#orders.length + 1,
      petId,
      quantity,
      shipDate,
      status,
      complete,
    };
    this.#orders.push(order);
    return order;
  }

  listOrders(afterId: number | undefined, limit: number): Order[] {
    const start = firstAfter(this.#orders, afterId ?? 0);
    return this.#orders.slice(start, start + limit);
  }

  /**
   * At most one pet per (scope, key) while the claim lives. Look-up, insert and
   * claim happen in one synchronous step, so no two requests can both find a key
   * absent, and none ever finds one in flight (that 409 needs a store that waits).
   */
  createPetOnce(
    claim: { readonly scope: string; readonly key: string; readonly fingerprint: string },
    input: NewPet,
    now = Date.now(),
    retentionMs = RETENTION_MS,
  ): KeyedCreate {
    this.#purge(now);
    // Length-prefixed, so scope 'ab' + key 'c' never meets scope 'a' + key 'bc'.
    const mapKey = `${claim.scope.length}:${claim.scope}${claim.key}`;
    const held = this.#claims.get(mapKey);
    if (held !== undefined && held.expiresAt > now) {
      return held.fingerprint === claim.fingerprint
        ? { kind: 'replayed', pet: held.pet }
        : { kind: 'mismatch' };
    }
    if (this.#claims.size >= MAX_CLAIMS)
      return { kind: 'full', retryAfterSeconds: this.#wait(now) };
    const pet = this.createPet(input);
    // Deleted first: an expired claim re-recorded goes to the end of the expiry order.
    this.#claims.delete(mapKey);
    this.#claims.set(mapKey, { pet, fingerprint: claim.fingerprint, expiresAt: now + retentionMs });
    return { kind: 'created', pet };
  }

  /** Forgets expired claims from the oldest on; stops at the first live one. */
  #purge(now: number): void {
    for (const [mapKey, claim] of this.#claims) {
      if (claim.expiresAt > now) return;
      this.#claims.delete(mapKey);
    }
  }

  /** Seconds until the oldest claim expires and frees a place (1 to 60). */
  #wait(now: number): number {
    const oldest = this.#claims.values().next().value;
    const seconds = Math.ceil(((oldest?.expiresAt ?? now) - now) / 1000);
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds));
  }
}
