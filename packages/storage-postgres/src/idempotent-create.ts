import { createHash } from 'node:crypto';
import type { IdempotencyClaim, IdempotentCreateResult, PetInput } from '@petstore/core';
import type { Send } from './executor.js';
import { inlineParameters } from './inline-sql.js';
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

/** The answer a live claim gives, if there is one. */
function answerOf(
  row: ClaimRow | undefined,
  claim: IdempotencyClaim,
): IdempotentCreateResult | undefined {
  if (row?.live !== true) return undefined;
  return row.fingerprint === claim.fingerprint
    ? { kind: 'replayed', pet: toPet(row) }
    : { kind: 'fingerprint_mismatch' };
}

/**
 * The idempotent create, in two messages on one connection. Concurrency is settled by
 * PostgreSQL, across processes: the claim's transaction-scoped advisory lock is held until
 * COMMIT, so a second request with the same key either finds it taken (`in_flight`, without
 * waiting) or, once the first has committed, finds its claim (`replayed` or
 * `fingerprint_mismatch`).
 *
 * The first message opens the transaction, looks the claim up, tries the lock and looks again:
 * a stored claim answers even when a concurrent replay holds the lock (so replays of a finished
 * create never see 409), and the second look, a statement of its own and so a fresh snapshot
 * under READ COMMITTED, sees a claim its holder committed just before the lock was taken. The
 * second message either stores the pet and its claim in one statement and commits, or ends
 * the transaction.
 */
export async function createPetIdempotently(
  send: Send,
  begin: string,
  queries: Queries,
  quotedSchema: string,
  input: PetInput,
  claim: IdempotencyClaim,
): Promise<IdempotentCreateResult> {
  // Claims under the principal's older scopes count too (see IdempotencyClaim.alsoScopes).
  const scopes = [claim.scope, ...(claim.alsoScopes ?? [])];
  const lookup = inlineParameters(queries.selectClaim(scopes.length), [claim.key, ...scopes]);
  const lock = inlineParameters(queries.tryClaimLock, [claimLockKey(quotedSchema, claim)]);
  const results = await send(`${begin}; ${lookup}; ${lock}; ${lookup}`);
  const [before, locked, after] = results.slice(-3).map((result) => result.rows);
  const answer =
    answerOf(before?.[0] as ClaimRow | undefined, claim) ??
    ((locked?.[0] as { locked?: boolean } | undefined)?.locked === true
      ? answerOf(after?.[0] as ClaimRow | undefined, claim)
      : { kind: 'in_flight' as const });
  if (answer !== undefined) {
    await send('COMMIT');
    return answer;
  }
  const insert = inlineParameters(queries.insertPetWithClaim, [
    ...petValues(input),
    claim.scope,
    claim.key,
    claim.fingerprint,
    Math.max(0, Math.round(claim.retentionMs)),
  ]);
  const stored = await send(`${insert}; COMMIT`);
  const row = stored.at(-2)?.rows[0] as PetRow | undefined;
  if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
  return { kind: 'created', pet: toPet(row) };
}
