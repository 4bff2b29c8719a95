import { createHash } from 'node:crypto';
import type { IdempotencyClaim, IdempotentCreateResult, PetInput } from '@petstore/core';
import type { Queryable } from './executor.js';
import { type ClaimRow, type PetRow, petValues, type Queries, toPet } from './queries.js';

/**
 * A 64-bit advisory lock key per (schema, scope, key), as a decimal string for `::bigint`.
 * The one-argument (bigint) lock space is separate from migrate()'s two-int4 locks.
 */
const claimLockKey = (quotedSchema: string, claim: IdempotencyClaim): string =>
  createHash('sha256')
    .update(`${quotedSchema}\u0000${claim.scope}\u0000${claim.key}`)
    .digest()
    .readBigInt64BE(0)
    .toString();

/** The answer a live claim for this key gives, if there is one. */
async function settled(
  tx: Queryable,
  queries: Queries,
  claim: IdempotencyClaim,
): Promise<IdempotentCreateResult | undefined> {
  const [existing] = await tx.rows<ClaimRow>(queries.selectClaim, [claim.scope, claim.key]);
  if (existing?.live !== true) return undefined;
  return existing.fingerprint === claim.fingerprint
    ? { kind: 'replayed', pet: toPet(existing) }
    : { kind: 'fingerprint_mismatch' };
}

/**
 * The body of the idempotent create transaction. Concurrency is settled by PostgreSQL, across
 * processes: the claim's transaction-scoped advisory lock is held until COMMIT, so a second
 * request with the same key either finds it taken (`in_flight`, without waiting) or, once the
 * first has committed, finds its claim (`replayed` or `fingerprint_mismatch`). A claim already
 * stored is answered before the lock is tried, so only a create really in progress gives 409.
 */
export async function createPetIdempotently(
  tx: Queryable,
  queries: Queries,
  quotedSchema: string,
  input: PetInput,
  claim: IdempotencyClaim,
): Promise<IdempotentCreateResult> {
  // A stored claim answers without the lock: replays of a finished create never see 409.
  const stored = await settled(tx, queries, claim);
  if (stored !== undefined) return stored;

  const [lock] = await tx.rows<{ locked: boolean }>(
    'SELECT pg_try_advisory_xact_lock($1::bigint) AS locked',
    [claimLockKey(quotedSchema, claim)],
  );
  if (lock?.locked !== true) return { kind: 'in_flight' };
  // The holder may have committed between the first look and the lock.
  const committed = await settled(tx, queries, claim);
  if (committed !== undefined) return committed;

  const [row] = await tx.rows<PetRow>(queries.insertPet, petValues(input));
  if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
  await tx.rows(queries.upsertClaim, [
    claim.scope,
    claim.key,
    claim.fingerprint,
    row.id,
    Math.max(0, Math.round(claim.retentionMs)),
  ]);
  await tx.rows(queries.purgeExpiredClaims, []);
  return { kind: 'created', pet: toPet(row) };
}
