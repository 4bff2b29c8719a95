import { createHash } from 'node:crypto';
import type { IdempotencyClaim, IdempotentCreateResult, PetInput } from '@petstore/core';
import type { Executor } from './executor.js';
import { type ClaimRow, type CreateOnceRow, petValues, type Queries, toPet } from './queries.js';

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

/** The answer a found claim gives: its pet again, or a mismatch of bodies. */
const answerOf = (row: ClaimRow, claim: IdempotencyClaim): IdempotentCreateResult =>
  row.fingerprint === claim.fingerprint
    ? { kind: 'replayed', pet: toPet(row) }
    : { kind: 'fingerprint_mismatch' };

/**
 * The idempotent create, in one statement (one round trip, one implicit transaction, under the
 * statement timeout like every write). Concurrency is settled by PostgreSQL, across processes:
 *
 * - The statement takes the claim's transaction-scoped advisory lock without waiting; a second
 *   request with the same key while the first runs finds it taken: `in_flight`.
 * - A live claim the statement sees answers, lock or no lock (so replays of a finished create
 *   never see `in_flight`).
 * - Otherwise it writes the claim and, only where the claim was written, the pet, with an id
 *   drawn for it: both or neither. A live claim is never overwritten (`ON CONFLICT ... WHERE`
 *   expired), so a claim committed after this statement's snapshot but before its lock was
 *   taken is not lost: the statement then creates nothing and answers `raced`, and a second
 *   statement, with a fresh snapshot, reads that claim.
 */
export async function createPetIdempotently(
  run: Executor,
  queries: Queries,
  quotedSchema: string,
  input: PetInput,
  claim: IdempotencyClaim,
): Promise<IdempotentCreateResult> {
  // Claims under the principal's older scopes count too (see IdempotencyClaim.alsoScopes).
  const scopes = [claim.scope, ...(claim.alsoScopes ?? [])];
  const [row] = await run.write<CreateOnceRow>(queries.createPetOnce(scopes.length), [
    ...petValues(input),
    claim.scope,
    claim.key,
    claim.fingerprint,
    Math.max(0, Math.round(claim.retentionMs)),
    claimLockKey(quotedSchema, claim),
    ...scopes,
  ]);
  switch (row?.outcome) {
    case 'created':
      return { kind: 'created', pet: toPet(row) };
    case 'found':
      return answerOf(row, claim);
    case 'in_flight':
      return { kind: 'in_flight' };
    case 'raced': {
      const [found] = await run.read<ClaimRow>(queries.selectClaim(scopes.length), [
        claim.key,
        ...scopes,
      ]);
      return found?.live === true ? answerOf(found, claim) : { kind: 'in_flight' };
    }
    default:
      throw new Error('the keyed create answered no outcome');
  }
}
