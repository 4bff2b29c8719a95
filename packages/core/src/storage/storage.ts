import type { Order, OrderInput, Pet, PetInput, PetStatus } from '../schemas/schemas.js';

/** One page request: rows with `id > afterId`, ascending by id, at most `limit` of them. */
export interface PageQuery {
  readonly afterId?: number | undefined;
  readonly limit: number;
}

export interface PetPageQuery extends PageQuery {
  readonly status?: PetStatus | undefined;
}

/**
 * An Idempotency-Key as the core hands it to storage: stored atomically with
 * the pet it created, and unique per (scope, key) for `retentionMs`.
 */
export interface IdempotencyClaim {
  /**
   * Who sent it, opaque to storage: `id:<id>` for a key listed with an id or
   * a principal id from `verify`, else derived from the API key with a keyed
   * or slow function; never a key. Claims are written under this scope.
   */
  readonly scope: string;
  /**
   * The same principal's other scopes (under the scope secrets it had before,
   * `idempotency.previousScopeSecrets`): a claim stored under any of them is
   * found too, and answers as if under `scope`. Never written. Like `scope` and
   * `key`, a storage must not write them where anyone but its own tables keeps
   * them: statement text, logs, span attributes.
   */
  readonly alsoScopes?: readonly string[];
  /** The client's Idempotency-Key header (1 to 255 visible ASCII characters). */
  readonly key: string;
  /** Digest of the request body's meaning; a different body under the same key is refused. */
  readonly fingerprint: string;
  /** How long the key is remembered after the pet was created. */
  readonly retentionMs: number;
}

export type IdempotentCreateResult =
  /** No live claim existed: the pet and the claim were stored together. */
  | { readonly kind: 'created'; readonly pet: Pet }
  /** A live claim with the same fingerprint: the pet it created, nothing new stored. */
  | { readonly kind: 'replayed'; readonly pet: Pet }
  /** A live claim with another fingerprint. */
  | { readonly kind: 'fingerprint_mismatch' }
  /** Another request holding the same claim has not finished yet. */
  | { readonly kind: 'in_flight' };

/**
 * The storage port: what the core needs from a storage, and all it needs.
 *
 * Rules every implementation keeps (checked by `runStorageContract` from
 * `@petstore/conformance`):
 * - ids are positive safe integers, strictly increasing in creation order, never reused;
 * - `listPets`/`listOrders` return rows with `id > afterId`, ascending, at most
 *   `limit`, in O(limit + log n): never a scan over all rows;
 * - when the backing store cannot be reached, methods reject with
 *   `StorageUnavailableError` (the core answers 503); any other rejection is a bug (500).
 */
export interface PetStorage {
  createPet(input: PetInput): Promise<Pet>;
  /**
   * Creates a pet unless a live claim for (scope, key) exists. Claim and pet
   * are stored atomically (never one without the other), and races between
   * processes are settled by the store itself, not by an in-process lock.
   */
  createPetIdempotent(input: PetInput, claim: IdempotencyClaim): Promise<IdempotentCreateResult>;
  getPet(id: number): Promise<Pet | undefined>;
  listPets(query: PetPageQuery): Promise<Pet[]>;
  /** For the host application: v1 has no HTTP endpoint that writes orders. */
  createOrder(input: OrderInput): Promise<Order>;
  listOrders(query: PageQuery): Promise<Order[]>;
  /** Releases what the storage owns (never what the host passed in). Idempotent. */
  close(): Promise<void>;
}

/**
 * Thrown (rejected) by a storage when its backing store is unreachable or timed out.
 * The core turns it into 503 `service_unavailable` with `Retry-After`.
 */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
  /** Seconds a client should wait before retrying. */
  readonly retryAfterSeconds: number;
  /**
   * Why, in one short stable word for logs and metrics (never shown to a client): a SQLSTATE
   * (`57P01`), an errno (`ECONNREFUSED`), `timeout`, or the storage's own. Default `unavailable`.
   */
  readonly reason: string;

  constructor(
    message = 'storage unavailable',
    options: { cause?: unknown; retryAfterSeconds?: number; reason?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    this.reason = options.reason ?? 'unavailable';
  }
}

export const isStorageUnavailable = (error: unknown): error is StorageUnavailableError =>
  error instanceof StorageUnavailableError ||
  (error instanceof Error && error.name === 'StorageUnavailableError');
