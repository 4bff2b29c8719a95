import type { Logger } from './logging.js';

/**
 * Stops the listener, lets requests in flight finish for at most `timeoutMs`, then cuts what
 * is left. Calls `refusing` once new connections are refused; resolves when all are gone.
 */
export type Drain = (timeoutMs: number, refusing: () => void) => Promise<void>;

export interface ShutdownOptions {
  readonly drain: Drain;
  /** Closes the storage, after the last request is done with it. */
  readonly close: () => Promise<void>;
  readonly timeoutMs: number;
  /**
   * Milliseconds between the signal and the drain (SHUTDOWN_DELAY_MS): `/readyz` already answers
   * 503, the API still serves, so a balancer stops sending before the listener closes. Default 0.
   */
  readonly delayMs?: number;
  readonly logger: Logger;
  /** How the process ends; `process.exit` outside tests. */
  readonly exit?: (code: number) => void;
}

/** Past the drain's own bound, how long closing the storage may take before we give up. */
export const CLOSE_GRACE_MS = 5000;

/**
 * Signals this soon after the first are taken for copies of it, not for a second signal. One
 * Ctrl-C or `kill -- -PGID` reaches every process of the group, and wrappers (tsx, pnpm, npm,
 * a container's init) relay it to their child as well: the app gets the same signal two to four
 * times within tens of milliseconds. Node cannot tell who sent a signal (no sender pid), so
 * time is what separates a relayed copy from a person pressing Ctrl-C again.
 */
export const RELAYED_SIGNAL_WINDOW_MS = 1000;

/**
 * SIGTERM or SIGINT: drain, close the storage, exit 0. A second signal more than
 * `RELAYED_SIGNAL_WINDOW_MS` after the first exits 1 at once, as does a shutdown that overruns
 * its bound. Returns whether shutdown has begun.
 */
export function handleShutdownSignals({
  drain,
  close,
  timeoutMs,
  delayMs = 0,
  logger,
  exit = (code) => process.exit(code),
}: ShutdownOptions): () => boolean {
  let stopping = false;
  let firstAt = 0;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) {
      const afterMs = Math.round(performance.now() - firstAt);
      if (afterMs < RELAYED_SIGNAL_WINDOW_MS) {
        logger.debug({ signal, afterMs }, `${signal} again within ${afterMs} ms: a relayed copy`);
        return;
      }
      logger.warn({ signal, exitCode: 1 }, `${signal} again: exiting now`);
      exit(1);
      return;
    }
    stopping = true;
    firstAt = performance.now();
    const bound = delayMs + timeoutMs + CLOSE_GRACE_MS;
    const overrun = setTimeout(() => {
      logger.error({ signal, exitCode: 1 }, `shutdown took longer than ${bound} ms`);
      exit(1);
    }, bound);
    overrun.unref();
    const refusing = (): void =>
      logger.info({ signal }, `${signal}: no new connections; finishing requests in flight`);
    if (delayMs > 0) {
      logger.info(
        { signal, delayMs },
        `${signal}: not ready any more; serving ${delayMs} ms more before closing the listener`,
      );
    }
    new Promise((resolve) => setTimeout(resolve, delayMs))
      .then(() => drain(timeoutMs, refusing))
      .then(close)
      .then(
        () => {
          clearTimeout(overrun);
          logger.info({ exitCode: 0 }, 'stopped');
          exit(0);
        },
        (error: unknown) => {
          clearTimeout(overrun);
          logger.error({ err: error, exitCode: 1 }, 'stopping failed');
          exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  return () => stopping;
}
