import { createHash } from 'node:crypto';
import type { PetInput } from '@petstore/core';
import type { Queryable } from './executor.js';
import type { IdempotencyClaim, IdempotentCreateResult } from './port.js';
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

/**
 * The body of the idempotent create transaction. Concurrency is settled by PostgreSQL, across
 * processes: the claim's transaction-scoped advisory lock is held until COMMIT, so a second
 * request with the same key either finds it taken (`in_flight`, without waiting) or, once the
 * first has committed, finds its claim (`replayed` or `fingerprint_mismatch`).
 */
export async function createPetIdempotently(
  tx: Queryable,
  queries: Queries,
  quotedSchema: string,
  input: PetInput,
  claim: IdempotencyClaim,
): Promise<IdempotentCreateResult> {
  const [lock] = await tx.rows<{ locked: boolean }>(
    'SELECT pg_try_advisory_xact_lock($1::bigint) AS locked',
    [claimLockKey(quotedSchema, claim)],
  );
  if (lock?.locked !== true) return { kind: 'in_flight' };

  const [existing] = await tx.rows<ClaimRow>(queries.selectClaim, [claim.scope, claim.key]);
  if (existing?.live === true) {
    return existing.fingerprint === claim.fingerprint
      ? { kind: 'replayed', pet: toPet(existing) }
      : { kind: 'fingerprint_mismatch' };
  }

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
