import { StorageUnavailableError } from '@petstore/core';
import type { Pool, QueryConfig, QueryResultRow } from 'pg';
import { boundQuery, statementTimeoutCall } from './bound-query.js';
import { inlineParameters, statementTimeout } from './inline-sql.js';
import { int8Types } from './int8.js';
import type { ResolvedTimeouts } from './options.js';
import { pooledQuery } from './pooled-query.js';
import { isStaleConnection, toStorageError } from './unavailable.js';

// Slack on the client-side timer so that the server's own statement_timeout fires first: a
// cancelled statement is a definite rollback, whereas a client giving up leaves the outcome
// unknown. Either way the caller gets a rejection, never a success.
const GRACE_MILLIS = 1000;

// The statement timeout travels with the work, as `SET LOCAL statement_timeout`, never as a
// connection startup parameter or a session SET: transaction-mode poolers (PgBouncer, hosted
// poolers) refuse unknown startup parameters, and hand each transaction whichever server
// connection is free, so a session setting would land on someone else's transaction. SET LOCAL
// lasts exactly one transaction, on the connection that runs it.

// A server restart leaves every idle pooled connection dead at once; each one the pool hands
// out before its error event has been processed costs one attempt.
const STALE_RETRIES = 3;

/** Reads and writes, each under the server's statement timeout, with error mapping. */
export interface Executor {
  /**
   * A statement that changes nothing, sent with its timeout as one simple-protocol message (one
   * round trip; parameters inlined, see inline-sql.ts). When the pool hands out a connection the
   * server has already ended, it runs again on another one (within the same time bound).
   */
  read<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
  /**
   * One writing statement, the same way: the message is one implicit transaction, committed
   * before the answer comes back, so it resolves only with committed rows. Writes never retry:
   * whether a write that failed mid-flight committed is unknown.
   */
  write<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
  /**
   * `read` with `values` as bind parameters, never in the statement's text (see bound-query.ts):
   * for statements that carry an Idempotency-Key claim's scopes or key. One round trip too.
   */
  readBound<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
  /** `write` with `values` as bind parameters, never in the statement's text. */
  writeBound<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
  /**
   * `read` with `before` (statements of ours, no parameters) run ahead of it in the same message
   * and implicit transaction: the rows of each of them, and the read's.
   */
  readAfter<Row extends QueryResultRow>(
    before: readonly string[],
    text: string,
    values: unknown[],
  ): Promise<{ before: QueryResultRow[][]; rows: Row[] }>;
}

export function createExecutor(
  pool: Pool,
  timeouts: ResolvedTimeouts,
  isClosed: () => boolean,
  /** Slack after the server's own timeout (see GRACE_MILLIS); 0 for a replica's reads. */
  graceMillis = GRACE_MILLIS,
): Executor {
  const { connectionTimeoutMillis, queryTimeoutMillis, retryAfterSeconds } = timeouts;
  const unavailable = (message: string, reason: string): StorageUnavailableError =>
    new StorageUnavailableError(message, { retryAfterSeconds, reason });
  const ensureOpen = (): void => {
    if (isClosed()) throw unavailable('storage is closed', 'closed');
  };
  const tooLate = (): Error => unavailable('PostgreSQL did not answer in time', 'timeout');

  const timeoutSql = statementTimeout(queryTimeoutMillis);
  const timeoutCall = statementTimeoutCall(queryTimeoutMillis);

  async function runAll(
    text: string,
    values: unknown[],
    {
      retryStale,
      bound,
      before = [],
    }: { retryStale: boolean; bound: boolean; before?: readonly string[] },
  ): Promise<QueryResultRow[][]> {
    ensureOpen();
    // Two statements in one message run as one implicit transaction, so the timeout set by the
    // first covers the second (the server arms its timer afresh for each statement). A bound
    // query is good for one call only: each attempt makes its own.
    const simple: QueryConfig<unknown[]> | undefined = bound
      ? undefined
      : {
          text: [timeoutSql, ...before, inlineParameters(text, values)].join('; '),
          types: int8Types,
        };
    const query = () => simple ?? boundQuery(timeoutCall, text, values);
    // Made before the loop: values a bound query refuses reject the call before anything is sent.
    const first = query();
    // The checkout, then the statement under the server's timeout, then the slack: the bound
    // holds even for a host pool configured without any timeouts.
    const deadline = performance.now() + connectionTimeoutMillis + queryTimeoutMillis + graceMillis;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const results = await pooledQuery<QueryResultRow>(
          pool,
          attempt === 0 ? first : query(),
          deadline - performance.now(),
          tooLate,
        );
        return results.map((result) => result.rows);
      } catch (error) {
        const retry =
          retryStale && attempt < STALE_RETRIES && isStaleConnection(error) && !isClosed();
        if (!retry || performance.now() >= deadline) throw toStorageError(error, retryAfterSeconds);
      }
    }
  }

  const run = async <Row extends QueryResultRow>(
    text: string,
    values: unknown[],
    how: { retryStale: boolean; bound: boolean },
  ): Promise<Row[]> => ((await runAll(text, values, how)).at(-1) ?? []) as Row[];

  return {
    read: (text, values) => run(text, values, { retryStale: true, bound: false }),
    write: (text, values) => run(text, values, { retryStale: false, bound: false }),
    readBound: (text, values) => run(text, values, { retryStale: true, bound: true }),
    writeBound: (text, values) => run(text, values, { retryStale: false, bound: true }),
    async readAfter<Row extends QueryResultRow>(
      before: readonly string[],
      text: string,
      values: unknown[],
    ) {
      const results = await runAll(text, values, { retryStale: true, bound: false, before });
      return {
        // The first result is the statement timeout's SET.
        before: results.slice(1, 1 + before.length),
        rows: (results.at(-1) ?? []) as Row[],
      };
    },
  };
}
