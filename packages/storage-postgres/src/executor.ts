import { StorageUnavailableError } from '@petstore/core';
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from 'pg';
import { int8Types } from './int8.js';
import type { ResolvedTimeouts } from './options.js';
import { isStaleConnection, toStorageError } from './unavailable.js';

/** pg honours `query_timeout` on a query config; @types/pg leaves it out. */
interface TimedQueryConfig extends QueryConfig<unknown[]> {
  readonly query_timeout: number;
}

// Slack on the client-side timers so that the server's own statement_timeout (set on pools the
// storage creates) fires first: a cancelled statement is a definite rollback, whereas a client
// giving up leaves the outcome unknown. Either way the caller gets a rejection, never a success.
const GRACE_MILLIS = 1000;

// A server restart leaves every idle pooled connection dead at once; each one the pool hands
// out before its error event has been processed costs one attempt.
const STALE_RETRIES = 3;

/** Runs statements: one on its own, or several in one transaction. */
export interface Queryable {
  rows<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
}

/** One parameterised statement at a time, or a transaction, with timeouts and error mapping. */
export interface Executor extends Queryable {
  /**
   * For statements that change nothing: when the pool hands out a connection the server has
   * already ended, run it again on another one (within the same time bound). Writes never
   * retry: whether a write that failed mid-flight committed is unknown.
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

  async function run<Row extends QueryResultRow>(
    text: string,
    values: unknown[],
    retries: number,
  ): Promise<Row[]> {
    ensureOpen();
    // The overall bound holds even for a host pool configured without any timeouts.
    const deadline =
      performance.now() + connectionTimeoutMillis + queryTimeoutMillis + 2 * GRACE_MILLIS;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const work = pool.query<Row>(config(text, values));
        const left = deadline - performance.now();
        const result = await withDeadline(work, left, () =>
          unavailable('PostgreSQL did not answer in time'),
        );
        return result.rows;
      } catch (error) {
        const retry = attempt < retries && isStaleConnection(error) && !isClosed();
        if (!retry || performance.now() >= deadline) throw toStorageError(error, retryAfterSeconds);
      }
    }
  }

  return {
    rows: <Row extends QueryResultRow>(text: string, values: unknown[]) =>
      run<Row>(text, values, 0),

    read: <Row extends QueryResultRow>(text: string, values: unknown[]) =>
      run<Row>(text, values, STALE_RETRIES),

    async transaction<T>(body: (tx: Queryable) => Promise<T>): Promise<T> {
      ensureOpen();
      const client = await checkout(pool, connectionTimeoutMillis + GRACE_MILLIS).catch(
        (error: unknown) => {
          throw toStorageError(error, retryAfterSeconds);
        },
      );
      // A connection that dies while checked out emits `error`; unheard, that would crash the
      // process. The same failure reaches the pending query, which is what we report.
      const ignore = (): void => undefined;
      client.on('error', ignore);
      let released = false;
      const release = (error?: Error): void => {
        if (released) return;
        released = true;
        client.off('error', ignore);
        // With an error, the pool closes the connection; the server then rolls back whatever
        // transaction was still open on it.
        client.release(error);
      };
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
        await client.query(config('BEGIN', []));
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
          !released &&
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
}

/** `pool.connect()` with a bound; a connection that arrives too late goes straight back. */
function checkout(pool: Pool, millis: number): Promise<PoolClient> {
  let late = false;
  const connecting = pool.connect();
  connecting.then(
    (client) => {
      if (late) client.release();
    },
    () => undefined,
  );
  return withDeadline(connecting, millis, () => {
    late = true;
    return new Error('timeout exceeded when trying to connect');
  });
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
