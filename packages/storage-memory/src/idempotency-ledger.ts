import type { IdempotencyClaim } from '@petstore/core';

/** What is kept per claim: enough to replay or refuse, never the response itself. */
interface Entry {
  /** Its key in the map, so the queue can hold entries alone. */
  readonly mapKey: string;
  readonly petId: number;
  readonly fingerprint: string;
  readonly expiresAt: number;
}

/** What a lookup finds for (scope, key): nothing live, or the live entry. */
export type LedgerLookup =
  | { readonly kind: 'absent' }
  | { readonly kind: 'match'; readonly petId: number }
  | { readonly kind: 'mismatch' };

// Drop the consumed head of the queue once it is this long and at least half the array.
const COMPACT_AT = 1024;

/**
 * Idempotency claims by (scope, key), each remembered until `expiresAt`.
 *
 * Expiry is handled without ever scanning: claims are recorded in time order,
 * so a FIFO queue of them is (near enough) in expiry order, and `purge` pops
 * expired ones off its head. Each claim is queued once and popped once:
 * amortised O(1) per call. Lookups also check `expiresAt`, so an expired claim
 * still waiting in the queue already counts as absent. With mixed retentions
 * (or a clock that steps back) a long-lived head can delay the purge of later,
 * shorter claims until it expires itself; that costs memory for a while, never
 * correctness.
 */
export class IdempotencyLedger {
  readonly #entries = new Map<string, Entry>();
  /** The most claims held at once (live ones and expired ones not purged yet). */
  readonly maxEntries: number;
  /** Claims in recording order; `#head` is the first not yet popped. */
  #queue: Entry[] = [];
  #head = 0;

  constructor(maxEntries = Number.POSITIVE_INFINITY) {
    this.maxEntries = maxEntries;
  }

  /** Whether a new claim would pass `maxEntries` (purge first: expired ones count until then). */
  get full(): boolean {
    return this.#entries.size >= this.maxEntries;
  }

  /** Milliseconds until the oldest claim held expires and frees a place, at `now`. */
  msUntilRoom(now: number): number {
    const oldest = this.#queue[this.#head];
    return oldest === undefined ? 0 : Math.max(0, oldest.expiresAt - now);
  }

  /** Live claims plus expired ones not purged yet. */
  get size(): number {
    return this.#entries.size;
  }

  /** Queue slots held, popped ones included: those are released in batches. For tests. */
  get queueSlots(): number {
    return this.#queue.length;
  }

  /**
   * The live claim for this key under `claim.scope` or one of its `alsoScopes` (the principal's
   * scopes under previous scope secrets), which answers as if under `scope`; `record` writes
   * under `scope` only.
   */
  lookup(claim: IdempotencyClaim, now: number): LedgerLookup {
    for (const scope of [claim.scope, ...(claim.alsoScopes ?? [])]) {
      const entry = this.#entries.get(mapKey({ scope, key: claim.key }));
      if (entry === undefined || entry.expiresAt <= now) continue;
      return entry.fingerprint === claim.fingerprint
        ? { kind: 'match', petId: entry.petId }
        : { kind: 'mismatch' };
    }
    return { kind: 'absent' };
  }

  /** Records a claim for a pet just created; replaces an expired claim under the same key. */
  record(claim: IdempotencyClaim, petId: number, now: number): void {
    const entry: Entry = {
      mapKey: mapKey(claim),
      petId,
      fingerprint: claim.fingerprint,
      expiresAt: now + claim.retentionMs,
    };
    this.#entries.set(entry.mapKey, entry);
    this.#queue.push(entry);
  }

  /** Forgets claims expired at `now`, from the head of the queue only. Returns how many. */
  purge(now: number): number {
    let purged = 0;
    while (this.#head < this.#queue.length) {
      const entry = this.#queue[this.#head];
      if (entry === undefined || entry.expiresAt > now) break;
      // The key may hold a newer claim recorded after this one expired: keep that.
      if (this.#entries.get(entry.mapKey) === entry) {
        this.#entries.delete(entry.mapKey);
        purged += 1;
      }
      this.#head += 1;
    }
    if (this.#head >= COMPACT_AT && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return purged;
  }
}

// Length-prefixed, so scope 'ab' + key 'c' and scope 'a' + key 'bc' never collide.
const mapKey = (claim: Pick<IdempotencyClaim, 'scope' | 'key'>): string =>
  `${claim.scope.length}:${claim.scope}${claim.key}`;
