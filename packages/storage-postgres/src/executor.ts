import { StorageUnavailableError } from '@petstore/core';
import type { Pool, QueryConfig, QueryResultRow } from 'pg';
import { int8Types } from './int8.js';
import type { ResolvedTimeouts } from './options.js';
import { toStorageError } from './unavailable.js';

/** pg honours `query_timeout` on a query config; @types/pg leaves it out. */
interface TimedQueryConfig extends QueryConfig<unknown[]> {
  readonly query_timeout: number;
}

// Slack on the client-side timers so that the server's own statement_timeout (set on pools the
// storage creates) fires first: a cancelled statement is a definite rollback, whereas a client
// giving up leaves the outcome unknown. Either way the caller gets a rejection, never a success.
const GRACE_MILLIS = 1000;

/** Runs one parameterised statement with the storage's timeouts and error mapping. */
export interface Executor {
  rows<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
}

export function createExecutor(
  pool: Pool,
  timeouts: ResolvedTimeouts,
  isClosed: () => boolean,
): Executor {
  const { connectionTimeoutMillis, queryTimeoutMillis, retryAfterSeconds } = timeouts;
  // The overall bound holds even for a host pool configured without any timeouts.
  const deadlineMillis = connectionTimeoutMillis + queryTimeoutMillis + 2 * GRACE_MILLIS;

  return {
    async rows<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]> {
      if (isClosed()) {
        throw new StorageUnavailableError('storage is closed', { retryAfterSeconds });
      }
      const config: TimedQueryConfig = {
        text,
        values,
        types: int8Types,
        query_timeout: queryTimeoutMillis + GRACE_MILLIS,
      };
      try {
        const result = await withDeadline(
          pool.query<Row>(config),
          deadlineMillis,
          retryAfterSeconds,
        );
        return result.rows;
      } catch (error) {
        throw toStorageError(error, retryAfterSeconds);
      }
    },
  };
}

function withDeadline<T>(work: Promise<T>, millis: number, retryAfterSeconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new StorageUnavailableError('PostgreSQL did not answer in time', { retryAfterSeconds }),
      );
    }, millis);
    timer.unref();
  });
  // When the deadline wins, the late outcome of `work` is already answered for: swallow it.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
