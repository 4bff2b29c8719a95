import { hash } from 'node:crypto';
import type { IdempotencyClaim, IdempotentCreateResult, PetInput } from '@petstore/core';
import type { Executor } from './executor.js';
import { type ClaimRow, type CreateOnceRow, petValues, type Queries, toPet } from './queries.js';

/**
 * A 64-bit advisory lock key per (schema, scope, key), as a decimal string for `::bigint`.
 * The one-argument (bigint) lock space is separate from migrate()'s two-int4 locks.
 */
const claimLockKey = (quotedSchema: string, claim: IdempotencyClaim): string =>
  hash('sha256', `${quotedSchema}\u0000${claim.scope}\u0000${claim.key}`, 'buffer')
    .readBigInt64BE(0)
    .toString();

/** The answer a live claim gives: its pet again, or a mismatch of bodies. */
const answerOf = (row: ClaimRow, claim: IdempotencyClaim): IdempotentCreateResult =>
  row.fingerprint === claim.fingerprint
    ? { kind: 'replayed', pet: toPet(row) }
    : { kind: 'fingerprint_mismatch' };

/**
 * The idempotent create, in one statement (`queries.createPetOnce`: on a connection that
 * prepares it, the statement itself; else a call of `create_pet_once`, migrations/003, whose
 * plans PostgreSQL keeps): one round trip, one implicit transaction, under the statement timeout
 * like every write. Concurrency is settled by PostgreSQL, across processes:
 *
 * - The claim's transaction-scoped advisory lock is tried without waiting, and the claim looked
 *   up. A live claim answers, lock or no lock, so replays of a finished create never see
 *   `in_flight`; with no claim and no lock, another transaction is still creating the key:
 *   `in_flight`.
 * - With the lock and no claim, the claim is written and, only where the claim was written, the
 *   pet: both or neither. A live claim is never overwritten; should one be there that the lookup
 *   did not see (committed after the lookup's snapshot, or by a writer that takes no lock),
 *   nothing is written (`raced`) and a second statement reads that claim.
 */
export async function createPetIdempotently(
  run: Executor,
  queries: Queries,
  quotedSchema: string,
  input: PetInput,
  claim: IdempotencyClaim,
): Promise<IdempotentCreateResult> {
  // Claims under the principal's other scopes count too (see IdempotencyClaim.alsoScopes). Scopes
  // and key go as bind parameters, never into the statement's text (see bound-query.ts).
  const alsoScopes = claim.alsoScopes ?? [];
  const [row] = await run.writeBound<CreateOnceRow>(queries.createPetOnce, [
    ...petValues(input),
    claim.scope,
    claim.key,
    claim.fingerprint,
    Math.max(0, Math.round(claim.retentionMs)),
    claimLockKey(quotedSchema, claim),
    alsoScopes,
  ]);
  switch (row?.outcome) {
    case 'created':
      return { kind: 'created', pet: toPet(row) };
    case 'found':
      return answerOf(row, claim);
    case 'in_flight':
      return { kind: 'in_flight' };
    case 'raced': {
      const scopes = [claim.scope, ...alsoScopes];
      const [found] = await run.readBound<ClaimRow>(queries.selectClaim, [claim.key, scopes]);
      return found === undefined ? { kind: 'in_flight' } : answerOf(found, claim);
    }
    default:
      throw new Error('the keyed create answered no outcome');
  }
}
