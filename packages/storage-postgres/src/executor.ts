import { StorageUnavailableError } from '@petstore/core';
import type { Pool, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { inlineParameters, statementTimeout } from './inline-sql.js';
import { int8Types } from './int8.js';
import { lease } from './lease.js';
import type { ResolvedTimeouts } from './options.js';
import { isStaleConnection, toStorageError } from './unavailable.js';

/** pg honours `query_timeout` on a query config; @types/pg leaves it out. */
interface TimedQueryConfig extends QueryConfig<unknown[]> {
  readonly query_timeout: number;
}

// Slack on the client-side timers so that the server's own statement_timeout fires first: a
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

/** Runs statements: one on its own, or several in one transaction. */
export interface Queryable {
  rows<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
}

/** Reads, writes and transactions, each under the server's statement timeout, with error mapping. */
export interface Executor extends Queryable {
  /**
   * A statement that changes nothing, with integer or status-word parameters only: sent with
   * its timeout as one simple-protocol message (one round trip; see inline-sql.ts). When the
   * pool hands out a connection the server has already ended, it runs again on another one
   * (within the same time bound). Writes never retry: whether a write that failed mid-flight
   * committed is unknown.
   */
  read<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
  /** BEGIN, `body`, COMMIT on one connection; resolves only once COMMIT has succeeded. */
  transaction<T>(body: (tx: Queryable) => Promise<T>): Promise<T>;
}

export function createExecutor(
  pool: Pool,
  timeouts: ResolvedTimeouts,
  isClosed: () => boolean,
): Executor {
  const { connectionTimeoutMillis, queryTimeoutMillis, retryAfterSeconds } = timeouts;
  const unavailable = (message: string): StorageUnavailableError =>
    new StorageUnavailableError(message, { retryAfterSeconds });
  const config = (text: string, values: unknown[]): TimedQueryConfig => ({
    text,
    values,
    types: int8Types,
    query_timeout: queryTimeoutMillis + GRACE_MILLIS,
  });
  const ensureOpen = (): void => {
    if (isClosed()) throw unavailable('storage is closed');
  };

  const timeoutSql = statementTimeout(queryTimeoutMillis);
  // BEGIN and the timeout in one message: a transaction costs no extra round trip for it.
  const beginSql = `BEGIN; ${timeoutSql}`;

  async function read<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]> {
    ensureOpen();
    // Two statements in one simple-protocol message run as one implicit transaction, so the
    // SET LOCAL covers the SELECT (the server arms its timer afresh for each statement).
    const query: TimedQueryConfig = {
      text: `${timeoutSql}; ${inlineParameters(text, values)}`,
      types: int8Types,
      query_timeout: queryTimeoutMillis + GRACE_MILLIS,
    };
    // The overall bound holds even for a host pool configured without any timeouts.
    const deadline =
      performance.now() + connectionTimeoutMillis + queryTimeoutMillis + 2 * GRACE_MILLIS;
    for (let attempt = 0; ; attempt += 1) {
      try {
        // pg answers a multi-statement message with one result per statement.
        const work = pool.query(query) as unknown as Promise<QueryResult<Row>[]>;
        const left = deadline - performance.now();
        const results = await withDeadline(work, left, () =>
          unavailable('PostgreSQL did not answer in time'),
        );
        return results.at(-1)?.rows ?? [];
      } catch (error) {
        const retry = attempt < STALE_RETRIES && isStaleConnection(error) && !isClosed();
        if (!retry || performance.now() >= deadline) throw toStorageError(error, retryAfterSeconds);
      }
    }
  }

  const executor: Executor = {
    // A single write is a transaction of one statement: the timeout needs the transaction, and
    // the server cancelling a slow INSERT is a definite rollback rather than an unknown outcome.
    rows: <Row extends QueryResultRow>(text: string, values: unknown[]) =>
      executor.transaction((tx) => tx.rows<Row>(text, values)),

    read,

    async transaction<T>(body: (tx: Queryable) => Promise<T>): Promise<T> {
      ensureOpen();
      const held = await lease(pool, connectionTimeoutMillis + GRACE_MILLIS).catch(
        (error: unknown) => {
          throw toStorageError(error, retryAfterSeconds);
        },
      );
      const { client, release } = held;
      // Past this, drop the connection: its running statement fails and the body rejects.
      // With the checkout bound above, the whole call stays within the same bound as `run`.
      const timer = setTimeout(
        () => release(unavailable('transaction did not finish in time')),
        queryTimeoutMillis + GRACE_MILLIS,
      );
      timer.unref();
      const tx: Queryable = {
        rows: async <Row extends QueryResultRow>(text: string, values: unknown[]) =>
          (await client.query<Row>(config(text, values))).rows,
      };
      try {
        await client.query(config(beginSql, []));
        const result = await body(tx);
        await client.query(config('COMMIT', []));
        release();
        return result;
      } catch (error) {
        // Roll back before answering, so the transaction's locks (the idempotency claim's
        // advisory lock among them) are gone when the caller retries. Dropping the connection
        // would free them too, but only once the server notices. A connection that cannot roll
        // back in time is dropped.
        const rolledBack =
          !held.released &&
          (await withDeadline(client.query(config('ROLLBACK', [])), GRACE_MILLIS, () =>
            unavailable('ROLLBACK did not finish in time'),
          ).then(
            () => true,
            () => false,
          ));
        release(rolledBack ? undefined : error instanceof Error ? error : new Error(String(error)));
        throw toStorageError(error, retryAfterSeconds);
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return executor;
}

function withDeadline<T>(work: Promise<T>, millis: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), millis);
    timer.unref();
  });
  // When the deadline wins, the late outcome of `work` is already answered for: swallow it.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
