import { loadavg } from 'node:os';
import type { Progress } from './progress.js';

/** A 1-minute load average below this counts as a quiet machine (2 cores, nothing else running). */
export const QUIET_LOAD = 0.5;

/**
 * Waits, at most `maxSeconds`, for the 1-minute load average to fall below `QUIET_LOAD`: the
 * build `pnpm bench` runs first (or a test run just before) leaves it high for a minute or two
 * after the work has ended. Returns the load average it starts the bench with.
 */
export async function waitForQuiet(progress: Progress, maxSeconds: number): Promise<number> {
  const started = performance.now();
  let logged = -Infinity;
  for (;;) {
    const load = loadavg()[0] ?? 0;
    const waited = (performance.now() - started) / 1000;
    if (load < QUIET_LOAD || waited >= maxSeconds) {
      // Counted as planned and done, so the ETA's pace is not skewed by the wait.
      progress.plan(waited);
      progress.done(waited);
      return load;
    }
    if (waited - logged >= 15) {
      progress.log(
        `waiting for a quiet machine: 1-minute load average ${load.toFixed(2)} (at most ${Math.round(maxSeconds - waited)} s more)`,
      );
      logged = waited;
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}
