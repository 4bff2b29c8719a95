import type { ReplicaReadOutcome } from '@petstore/storage-postgres';
import type { Logger } from './logging.js';

/** Where a read went with DATABASE_READ_URL set. */
export type ReadTarget = 'replica' | 'primary_after_wait' | 'primary_at_once';

/** The storage's outcomes by where they sent the read. */
const TARGET: Readonly<Record<ReplicaReadOutcome, ReadTarget>> = {
  replica: 'replica',
  // The replica was asked first: the read waited for it, then went to the primary.
  behind: 'primary_after_wait',
  failed: 'primary_after_wait',
  // The replica is resting (it failed or was behind moments ago): straight to the primary.
  resting: 'primary_at_once',
};

export interface ReplicaReads {
  /** For storage-postgres' `onReplicaRead`. */
  readonly onRead: (outcome: ReplicaReadOutcome, cause?: Error) => void;
  /** Reads so far, by where they went and why. */
  counts(): readonly {
    readonly target: ReadTarget;
    readonly outcome: ReplicaReadOutcome;
    readonly count: number;
  }[];
}

/** A warning about the replica at most this often while it keeps failing. */
const WARN_EVERY_MS = 60_000;

/**
 * Counts where reads went, and says when the replica cannot be used: a `warn` line with the
 * reason the first time a read fails on it (a wrong password, a refused connection, a timeout:
 * pg's messages, which never hold the URL's password), again at most once a minute while it
 * keeps failing, and an `info` line once it answers again. Otherwise every read would quietly
 * go to the primary.
 */
export function watchReplicaReads(
  logger: Logger | undefined,
  now = () => performance.now(),
): ReplicaReads {
  const counts = new Map<ReplicaReadOutcome, number>();
  let failing = false;
  let warnedAt = Number.NEGATIVE_INFINITY;
  let failedSinceWarning = 0;
  return {
    onRead(outcome, cause) {
      counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
      if (outcome === 'failed') {
        failedSinceWarning++;
        if (now() - warnedAt >= WARN_EVERY_MS) {
          logger?.warn(
            { reason: cause?.message ?? 'unknown', failedReads: failedSinceWarning },
            'read replica (DATABASE_READ_URL) cannot be used: reads go to the primary',
          );
          warnedAt = now();
          failedSinceWarning = 0;
        }
        failing = true;
      } else if (outcome === 'replica' && failing) {
        failing = false;
        warnedAt = Number.NEGATIVE_INFINITY;
        failedSinceWarning = 0;
        logger?.info('read replica (DATABASE_READ_URL) answers again');
      }
    },
    counts: () =>
      [...counts].map(([outcome, count]) => ({ target: TARGET[outcome], outcome, count })),
  };
}
