import type { IdempotencyClaim, IdempotentCreateResult, Pet, PetInput } from '@petstore/core';
import { petValues, type Row, toPet } from './rows.js';
import type { Statements } from './statements.js';
import { writeTransaction } from './transaction.js';

/** The live claim for the key under the claim's scope or one of its older scopes, if any. */
function findClaim(statements: Statements, claim: IdempotencyClaim, now: number): Row | undefined {
  for (const scope of [claim.scope, ...(claim.alsoScopes ?? [])]) {
    const row = statements.selectClaim.get(scope, claim.key, now);
    if (row !== undefined) return row;
  }
  return undefined;
}

/** The answer a live claim gives: its pet again, or a mismatch of bodies. */
const answerOf = (row: Row, claim: IdempotencyClaim): IdempotentCreateResult =>
  row.fingerprint === claim.fingerprint
    ? { kind: 'replayed', pet: toPet(row) }
    : { kind: 'fingerprint_mismatch' };

/**
 * The keyed create. node:sqlite is synchronous, so within one process this whole function runs
 * without a pause: no other call can see the key between the lookup and the write, and a claim
 * is never `in_flight`. Across processes sharing the file, the write transaction settles it:
 *
 * - A live claim answers first, without the write lock (a replay never waits for a writer).
 * - Otherwise `BEGIN IMMEDIATE` takes the file's write lock, waiting while another process holds
 *   it (busy timeout). Under the lock the claim is looked up again: a process that created the
 *   same key meanwhile has committed its claim, and this call replays it.
 * - Still absent: the pet and its claim are written in that one transaction, both or neither.
 *   An expired claim under the key is replaced; a live one never is.
 */
export function createPetIdempotently(
  statements: Statements,
  input: PetInput,
  claim: IdempotencyClaim,
  now: () => number,
): IdempotentCreateResult {
  if (!Number.isSafeInteger(claim.retentionMs) || claim.retentionMs < 1) {
    throw new RangeError(
      `retentionMs must be a positive safe integer, got ${String(claim.retentionMs)}`,
    );
  }
  const seen = findClaim(statements, claim, now());
  if (seen !== undefined) return answerOf(seen, claim);
  return writeTransaction(statements, (): IdempotentCreateResult => {
    const at = now();
    const raced = findClaim(statements, claim, at);
    if (raced !== undefined) return answerOf(raced, claim);
    const row = statements.insertPet.get(...petValues(input));
    if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
    const pet: Pet = toPet(row);
    const { changes } = statements.writeClaim.run(
      claim.scope,
      claim.key,
      claim.fingerprint,
      pet.id,
      at,
      at + claim.retentionMs,
      at,
    );
    // Impossible while the write lock is held and no live claim was found; never keep the pet then.
    if (Number(changes) !== 1) throw new Error('the Idempotency-Key claim was not written');
    return { kind: 'created', pet };
  });
}
