import type { Server } from 'node:http';
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
  readonly logger: Logger;
  /** How the process ends; `process.exit` outside tests. */
  readonly exit?: (code: number) => void;
}

/** Past the drain's own bound, how long closing the storage may take before we give up. */
export const CLOSE_GRACE_MS = 5000;

/**
 * SIGTERM or SIGINT: drain, close the storage, exit 0. A second signal exits 1 at once,
 * as does a shutdown that overruns its bound. Returns whether shutdown has begun.
 */
export function handleShutdownSignals({
  drain,
  close,
  timeoutMs,
  logger,
  exit = (code) => process.exit(code),
}: ShutdownOptions): () => boolean {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, `${signal} again: exiting now`);
      exit(1);
      return;
    }
    stopping = true;
    const overrun = setTimeout(() => {
      logger.error({ signal }, `shutdown took longer than ${timeoutMs + CLOSE_GRACE_MS} ms`);
      exit(1);
    }, timeoutMs + CLOSE_GRACE_MS);
    overrun.unref();
    const refusing = (): void =>
      logger.info({ signal }, `${signal}: no new connections; finishing requests in flight`);
    drain(timeoutMs, refusing)
      .then(close)
      .then(
        () => {
          clearTimeout(overrun);
          logger.info('stopped');
          exit(0);
        },
        (error: unknown) => {
          clearTimeout(overrun);
          logger.error({ err: error }, 'stopping failed');
          exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  return () => stopping;
}

/** A `Drain` for a plain Node HTTP server (Express): hapi's `server.stop()` does the same itself. */
export function drainHttpServer(server: Server): Drain {
  return (timeoutMs, refusing) =>
    new Promise<void>((resolve) => {
      // Connections go as soon as they fall idle (their answer sent); whatever still runs
      // after the grace period loses its connection.
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      const deadline = setTimeout(() => server.closeAllConnections(), timeoutMs);
      server.close(() => {
        clearInterval(sweep);
        clearTimeout(deadline);
        resolve();
      });
      // After close(): from here on, new connections are refused.
      refusing();
    });
}
