import {
  type Claim,
  type KeyedOutcome,
  type NewOrder,
  type NewPet,
  type Order,
  type PeerSeed,
  type PeerStore,
  type Pet,
  type PetStatus,
  StoreUnavailableError,
} from './store.js';

export interface MemoryStoreOptions {
  /** How long an Idempotency-Key is remembered. Default 24 hours. */
  readonly retentionMs?: number | undefined;
  /**
   * The most claims held at once. Default 100,000. When that many are live, a new key is
   * refused as unavailable (503) until the oldest expires: a key is never forgotten early,
   * which could turn a retry into a second pet.
   */
  readonly maxClaims?: number | undefined;
}

interface ClaimRecord {
  readonly mapKey: string;
  readonly petId: number;
  readonly fingerprint: string;
  readonly expiresAt: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
// Drop the consumed head of the expiry queue once it is this long and half the array.
const COMPACT_AT = 1024;

/** The first index of `sorted` (ascending ids) whose id is above `afterId`. */
function firstAfter(sorted: readonly Pet[], afterId: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as Pet).id <= afterId) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Pets and orders in arrays (id = index + 1, so an unfiltered page is one slice), one array
 * per status for filtered pages (a binary search, then a slice), and claims in a Map with
 * a FIFO queue in expiry order, so expired ones are dropped without a scan. Every method
 * is synchronous, so a keyed create is one critical section: never `in_flight` here.
 */
export class MemoryStore implements PeerStore {
  readonly #pets: Pet[] = [];
  readonly #byStatus: Record<PetStatus, Pet[]> = { available: [], pending: [], sold: [] };
  readonly #orders: Order[] = [];
  readonly #claims = new Map<string, ClaimRecord>();
  #queue: ClaimRecord[] = [];
  #head = 0;
  readonly #retentionMs: number;
  readonly #maxClaims: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.#retentionMs = options.retentionMs ?? DAY_MS;
    this.#maxClaims = options.maxClaims ?? 100_000;
  }

  listPets(afterId: number, limit: number, status: PetStatus | undefined): Pet[] {
    if (status === undefined) return this.#pets.slice(afterId, afterId + limit);
    const pets = this.#byStatus[status];
    const start = firstAfter(pets, afterId);
    return pets.slice(start, start + limit);
  }

  createPet({ name, categoryId, status }: NewPet): Pet {
    // Built in the answer's key order, so it is serialised as it is.
    const pet: Pet = { id: this.#pets.length + 1, name, categoryId, status };
    this.#pets.push(pet);
    this.#byStatus[status].push(pet);
    return pet;
  }

  createPetKeyed(input: NewPet, claim: Claim): KeyedOutcome {
    const now = Date.now();
    this.#purge(now);
    // Length-prefixed, so scope 'ab' + key 'c' never meets scope 'a' + key 'bc'.
    const mapKey = `${claim.scope.length}:${claim.scope}${claim.key}`;
    const found = this.#claims.get(mapKey);
    if (found !== undefined && found.expiresAt > now) {
      if (found.fingerprint !== claim.fingerprint) return { kind: 'mismatch' };
      return { kind: 'replayed', pet: this.#pets[found.petId - 1] as Pet };
    }
    if (this.#claims.size >= this.#maxClaims) {
      const wait = Math.ceil(((this.#queue[this.#head]?.expiresAt ?? now) - now) / 1000);
      throw new StoreUnavailableError(
        'Idempotency-Key claims are full',
        Math.min(60, Math.max(1, wait)),
      );
    }
    const pet = this.createPet(input);
    const record = {
      mapKey,
      petId: pet.id,
      fingerprint: claim.fingerprint,
      expiresAt: now + this.#retentionMs,
    };
    this.#claims.set(mapKey, record);
    this.#queue.push(record);
    return { kind: 'created', pet };
  }

  getPet(id: number): Pet | undefined {
    return this.#pets[id - 1];
  }

  listOrders(afterId: number, limit: number): Order[] {
    return this.#orders.slice(afterId, afterId + limit);
  }

  createOrder({ petId, quantity, shipDate, status, complete }: NewOrder): Order {
    const id = this.#orders.length + 1;
    const order: Order = { id, petId, quantity, shipDate, status, complete };
    this.#orders.push(order);
    return order;
  }

  /** Rows to start with, in this order (ids continue from the last). */
  async seed(rows: PeerSeed): Promise<void> {
    for (const pet of rows.pets ?? []) this.createPet(pet);
    for (const order of rows.orders ?? []) this.createOrder(order);
  }

  async close(): Promise<void> {}

  /** Forgets expired claims from the head of the queue only (queued in expiry order). */
  #purge(now: number): void {
    while (this.#head < this.#queue.length) {
      const record = this.#queue[this.#head] as ClaimRecord;
      if (record.expiresAt > now) break;
      // The key may hold a newer claim recorded after this one expired: keep that.
      if (this.#claims.get(record.mapKey) === record) this.#claims.delete(record.mapKey);
      this.#head++;
    }
    if (this.#head >= COMPACT_AT && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }
}

export const createMemoryStore = (options?: MemoryStoreOptions): MemoryStore =>
  new MemoryStore(options);
