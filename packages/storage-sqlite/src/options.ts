import { resolve } from 'node:path';

/**
 * How often a commit is flushed to disk (`PRAGMA synchronous`), in WAL mode:
 * - `NORMAL`: the WAL is synced at each checkpoint, not at each commit. A crash of the process
 *   loses nothing; a power loss or an OS crash may lose the transactions committed since the
 *   last sync, and never corrupts the file.
 * - `FULL`: the WAL is synced at every commit: a commit that returned survives a power loss too,
 *   at the cost of an fsync per write.
 * - `EXTRA`: `FULL`, and the folder is synced too when the WAL is reset.
 */
export type Synchronous = 'NORMAL' | 'FULL' | 'EXTRA';

export interface SqliteStorageOptions {
  /** The database file. Created when missing; its folder must exist. */
  readonly path: string;
  /**
   * Longest wait for a lock another connection holds (another process writing, a backup tool),
   * in milliseconds: `PRAGMA busy_timeout`. The wait blocks this thread (node:sqlite is
   * synchronous). Past it, a request answers 503 and opening fails. Default 5000.
   */
  readonly busyTimeoutMs?: number;
  /** `PRAGMA synchronous`; default `NORMAL` (see `Synchronous`). */
  readonly synchronous?: Synchronous;
  /**
   * Permissions of the database file and of its `-wal` and `-shm` companions, e.g. `0o600` for
   * its owner alone. A missing file is created with them whatever the umask, an existing one
   * (and companions left from before) is set to them at open, and SQLite gives the companions it
   * creates the file's permissions. Unset (the default): SQLite's own, 0644 less the umask.
   */
  readonly fileMode?: number;
  /** Apply the pending migrations when opening. Default true. */
  readonly migrate?: boolean;
  /**
   * Run `PRAGMA quick_check` when opening, so a damaged file is refused at start rather than
   * mid-request. It reads the whole file: about 1 s per GB. Default true.
   */
  readonly checkOnOpen?: boolean;
  /** `Retry-After` (seconds) sent with the 503 while the file cannot be written. Default 1. */
  readonly retryAfterSeconds?: number;
  /**
   * How often expired Idempotency-Key claims are deleted (up to 1,000 at a time), off the
   * request path. Default 60000; `0` turns it off.
   */
  readonly purgeIntervalMs?: number;
  /** Clock for Idempotency-Key retention, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5000;
export const DEFAULT_PURGE_INTERVAL_MS = 60_000;
const SYNCHRONOUS: readonly Synchronous[] = ['NORMAL', 'FULL', 'EXTRA'];

/** The options with their defaults, checked. */
export interface ResolvedOptions {
  /** Absolute. */
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly synchronous: Synchronous;
  readonly fileMode: number | undefined;
  readonly migrate: boolean;
  readonly checkOnOpen: boolean;
  readonly retryAfterSeconds: number;
  readonly purgeIntervalMs: number;
  readonly now: () => number;
}

const whole = (name: string, value: number | undefined, fallback: number, min: number): number => {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < min) {
    throw new TypeError(`${name} must be an integer of at least ${min}, got ${String(value)}`);
  }
  return resolved;
};

/** The file's path, absolute; an in-memory or URI name is refused (the file is the point). */
export function resolvePath(path: unknown): string {
  if (typeof path !== 'string' || path === '') {
    throw new TypeError('path must name the database file, e.g. "./petstore.db"');
  }
  if (path === ':memory:' || path.startsWith('file:')) {
    throw new TypeError(
      `path must be a file path, got ${JSON.stringify(path)} (in memory: use @petstore/storage-memory)`,
    );
  }
  return resolve(path);
}

/** A permission mode (0 to 0o777), or undefined. */
function fileMode(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > 0o777) {
    throw new TypeError(`fileMode must be a permission mode from 0 to 0o777, got ${String(value)}`);
  }
  return value;
}

export function resolveOptions(options: SqliteStorageOptions): ResolvedOptions {
  const synchronous = options.synchronous ?? 'NORMAL';
  if (!SYNCHRONOUS.includes(synchronous)) {
    throw new TypeError(
      `synchronous must be one of ${SYNCHRONOUS.join(', ')}, got ${JSON.stringify(synchronous)}`,
    );
  }
  return {
    path: resolvePath(options.path),
    busyTimeoutMs: whole('busyTimeoutMs', options.busyTimeoutMs, DEFAULT_BUSY_TIMEOUT_MS, 0),
    synchronous,
    fileMode: fileMode(options.fileMode),
    migrate: options.migrate ?? true,
    checkOnOpen: options.checkOnOpen ?? true,
    retryAfterSeconds: whole('retryAfterSeconds', options.retryAfterSeconds, 1, 1),
    purgeIntervalMs: whole(
      'purgeIntervalMs',
      options.purgeIntervalMs,
      DEFAULT_PURGE_INTERVAL_MS,
      0,
    ),
    now: options.now ?? Date.now,
  };
}
