import { StorageUnavailableError } from '@petstore/core';
import type { Pool, QueryResultRow } from 'pg';
import { createExecutor, type Executor, type StatementOptions } from './executor.js';
import type { ReplicaReadOutcome, ResolvedReplicaOptions, ResolvedTimeouts } from './options.js';

/**
 * Reads from a replica that see every write acknowledged before they began, whichever instance
 * made it (read-your-writes across a fleet), or from the primary.
 *
 * 1. The fence: the primary's WAL flush position, asked for after the read began. A commit is
 *    flushed before it is acknowledged (with `synchronous_commit` anything but `off`), so every
 *    write acknowledged before the read began lies at or before it. Concurrent reads share one
 *    question: a read waits for a question sent after it began (at most one in flight and one
 *    queued), so the primary answers about one per round trip, however many reads there are.
 * 2. On the replica, in one message and one implicit transaction: wait (at most `waitMillis`)
 *    until it has replayed up to the fence, check that it has, then read. Each statement of a
 *    read-committed transaction takes its own snapshot, so the read's snapshot is taken after the
 *    check passed and holds everything replayed by then.
 * 3. A replica that has not caught up by then (`behind`) or fails (`failed`) leaves the read to
 *    the primary, which first checks that it is not in recovery itself (a node just demoted by a
 *    switchover, still behind the balancer); either way the replica is then left alone for
 *    `timeoutMillis` (`resting`: straight to the primary), so a replica that lags (its replay
 *    paused, a burst it cannot keep up with) costs one read a wait now and then, not every read.
 *
 * No assumption is made about which replica the pool reaches (a synchronous standby or not, one
 * a failover left on an old timeline): the check is the same.
 */
export interface ReadRouter {
  read<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
}

/** `X/Y` in hex, as PostgreSQL prints a pg_lsn: safe to write into a statement. */
const LSN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/;

const FENCE_SQL =
  'SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_wal_flush_lsn()::text END AS lsn';

export function createReadRouter(
  primary: Executor,
  replicaPool: Pool,
  timeouts: ResolvedTimeouts,
  options: ResolvedReplicaOptions,
  isClosed: () => boolean,
  statements: StatementOptions,
  onRead: ((outcome: ReplicaReadOutcome, cause?: Error) => void) | undefined,
): ReadRouter {
  const { retryAfterSeconds } = timeouts;
  const inRecovery = (): StorageUnavailableError =>
    new StorageUnavailableError('the PostgreSQL primary is in recovery (a standby)', {
      retryAfterSeconds,
      reason: 'in_recovery',
    });
  // The replica's attempts are bounded by its own time: checkout, then the wait and the read.
  const replica = createExecutor(
    replicaPool,
    {
      connectionTimeoutMillis: options.timeoutMillis,
      queryTimeoutMillis: options.timeoutMillis + options.waitMillis,
      retryAfterSeconds,
    },
    isClosed,
    statements,
    0,
  );

  async function askFence(): Promise<string> {
    const [row] = await primary.read<{ lsn: string | null }>(FENCE_SQL, []);
    const lsn = row?.lsn ?? null;
    if (lsn === null) throw inRecovery();
    if (!LSN.test(lsn)) throw new Error(`unexpected WAL position from the primary: ${lsn}`);
    return lsn;
  }
  let inFlight: Promise<string> | undefined;
  let queued: Promise<string> | undefined;
  const ask = (): Promise<string> => {
    const asking = askFence().finally(() => {
      if (inFlight === asking) inFlight = undefined;
    });
    inFlight = asking;
    return asking;
  };
  /** A fence asked for after this call began. */
  const fence = (): Promise<string> => {
    if (inFlight === undefined) return ask();
    // The question in flight may predate this read: wait for the next one.
    queued ??= inFlight
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        queued = undefined;
        return ask();
      });
    return queued;
  };

  const replicaStatements = (lsn: string): string[] => [
    // The read's snapshot must be taken after the check below, whatever the server's default.
    "SET LOCAL transaction_isolation = 'read committed'",
    ...(options.waitMillis === 0
      ? []
      : [
          `DO $petstore$ DECLARE stop timestamptz := clock_timestamp() + interval '${options.waitMillis} milliseconds'; BEGIN WHILE pg_is_in_recovery() AND coalesce(pg_last_wal_replay_lsn() < '${lsn}'::pg_lsn, true) AND clock_timestamp() < stop LOOP PERFORM pg_sleep(0.001); END LOOP; END $petstore$`,
        ]),
    `SELECT coalesce(pg_is_in_recovery() AND pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn, false) AS fresh`,
  ];

  let restingUntil = 0;
  const report = (outcome: ReplicaReadOutcome, cause?: Error): void => {
    try {
      onRead?.(outcome, cause);
    } catch {
      // An observer's failure is not the read's.
    }
  };

  async function onPrimary<Row extends QueryResultRow>(
    text: string,
    values: unknown[],
  ): Promise<Row[]> {
    const { before, rows } = await primary.readAfter<Row>(
      ['SELECT pg_is_in_recovery() AS standby'],
      text,
      values,
    );
    if (before[0]?.[0]?.standby !== false) throw inRecovery();
    return rows;
  }

  return {
    async read<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]> {
      if (performance.now() < restingUntil) {
        report('resting');
        return onPrimary<Row>(text, values);
      }
      const lsn = await fence();
      try {
        const statements = replicaStatements(lsn);
        const { before, rows } = await replica.readAfter<Row>(statements, text, values);
        if (before.at(-1)?.[0]?.fresh === true) {
          report('replica');
          return rows;
        }
        restingUntil = performance.now() + options.timeoutMillis;
        report('behind');
      } catch (error) {
        // Unreachable, too slow, or refusing (a conflict with recovery, a node restarting): the
        // primary answers, and the replica rests.
        restingUntil = performance.now() + options.timeoutMillis;
        report('failed', error instanceof Error ? error : new Error(String(error)));
      }
      return onPrimary<Row>(text, values);
    },
  };
}
