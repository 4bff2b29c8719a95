import type { Database } from './driver.js';
import type { Statements } from './statements.js';

/** What a purge round needs: the statements, and a way to set the connection's busy timeout. */
export interface PurgeTarget {
  readonly statements: Statements;
  readonly db: Database;
  readonly busyTimeoutMs: number;
}

/**
 * Deletes expired Idempotency-Key claims every `intervalMs`, up to 1,000 each time, off the
 * request path. The purge never waits for the write lock: when another process holds it, this
 * round is skipped, so housekeeping never blocks this thread for a busy timeout. Expired claims
 * already count as absent, so a late purge costs space, never correctness.
 */
export function purgeExpiredClaims(
  target: PurgeTarget,
  intervalMs: number,
  now: () => number,
): { stop(): void } {
  if (intervalMs === 0) return { stop: () => undefined };
  const timer = setInterval(() => {
    purgeOnce(target, now());
  }, intervalMs);
  // Housekeeping never keeps a process alive.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** One round: the number of claims deleted, or 0 when the file was busy or unavailable. */
export function purgeOnce({ statements, db, busyTimeoutMs }: PurgeTarget, now: number): number {
  try {
    // `PRAGMA busy_timeout` takes effect when it is compiled, not when a prepared copy runs, so
    // these two are compiled each round (once a minute by default), unlike the request statements.
    db.exec('PRAGMA busy_timeout = 0');
    try {
      statements.begin.run();
      try {
        const { changes } = statements.purgeExpiredClaims.run(now);
        statements.commit.run();
        return Number(changes);
      } catch {
        statements.rollback.run();
        return 0;
      }
    } finally {
      db.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    }
  } catch {
    // Busy, full, closed: next round.
    return 0;
  }
}
