/**
 * What the hand-written peers keep, and the small store interface their HTTP layer
 * (contract.ts) runs over: in memory (memory-store.ts) or in PostgreSQL (pg-store.ts).
 * No @petstore package and no valibot: these are the peers' own types.
 */

export type PetStatus = 'available' | 'pending' | 'sold';
export const PET_STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

/** An animal as answered: exactly these keys, in this order (JSON.stringify keeps it). */
export interface Pet {
  readonly id: number;
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus;
}

/** A pet to store, its status already defaulted. */
export type NewPet = Omit<Pet, 'id'>;

export type OrderStatus = 'placed' | 'approved' | 'delivered';

export interface Order {
  readonly id: number;
  readonly petId: number;
  readonly quantity: number;
  /** RFC 3339, as `Date#toISOString` writes it. */
  readonly shipDate: string;
  readonly status: OrderStatus;
  readonly complete: boolean;
}

export type NewOrder = Omit<Order, 'id'>;

/** Rows a store starts with, in this order (ids 1, 2, ... on a fresh store). */
export interface PeerSeed {
  readonly pets?: readonly NewPet[] | undefined;
  readonly orders?: readonly NewOrder[] | undefined;
}

/** An Idempotency-Key claim: unique per (scope, key), stored with the pet it created. */
export interface Claim {
  /** Who sent it (from the API key; see contract.ts), so two clients' keys never meet. */
  readonly scope: string;
  readonly key: string;
  /** Digest of the body's meaning: another body under the same key is refused. */
  readonly fingerprint: string;
}

export type KeyedOutcome =
  | { readonly kind: 'created' | 'replayed'; readonly pet: Pet }
  /** A live claim with another fingerprint. */
  | { readonly kind: 'mismatch' }
  /** Another request holding the claim has not finished yet. */
  | { readonly kind: 'in_flight' };

/** In memory a store answers at once; a database answers later. */
export type Maybe<T> = T | Promise<T>;

export interface PeerStore {
  /** Pets with `id > afterId` (0: from the first), ascending, at most `limit`, of `status` when given. */
  listPets(afterId: number, limit: number, status: PetStatus | undefined): Maybe<readonly Pet[]>;
  createPet(pet: NewPet): Maybe<Pet>;
  /** The create under an Idempotency-Key: claim and pet both stored, or neither. */
  createPetKeyed(pet: NewPet, claim: Claim): Maybe<KeyedOutcome>;
  getPet(id: number): Maybe<Pet | undefined>;
  /** Orders with `id > afterId`, ascending, at most `limit`. */
  listOrders(afterId: number, limit: number): Maybe<readonly Order[]>;
  /** For the host application: no HTTP route writes orders. */
  createOrder(order: NewOrder): Maybe<Order>;
  close(): Promise<void>;
}

/**
 * The store cannot be reached (or is full, in memory): the peer answers 503 with
 * `Retry-After`. Any other failure of a store is a bug, answered 500.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';

  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}
