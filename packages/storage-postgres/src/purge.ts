import type { Executor } from './executor.js';
import type { Queries } from './queries.js';

/**
 * Deletes expired Idempotency-Key claims every `intervalMillis`, a bounded batch each time,
 * off the request path: no create waits for housekeeping. Several instances may purge at once
 * (the delete skips rows another holds). A failed purge (an outage) is tried again next time.
 */
export function purgeExpiredClaims(
  run: Executor,
  queries: Queries,
  intervalMillis: number,
): { stop(): void } {
  if (intervalMillis === 0) return { stop: () => undefined };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    run
      .write(queries.purgeExpiredClaims, [])
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  }, intervalMillis);
  // Housekeeping never keeps a process alive.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
