import { accessSync, constants, lstatSync, readlinkSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { connect, type Database, SQLITE, sqliteCode } from './driver.js';
import { applyFileMode } from './file-mode.js';
import { openErrorOf, SqliteOpenError } from './open-error.js';
import type { ResolvedOptions } from './options.js';
import { checkSchema, type MigrateResult, migrateDatabase } from './schema.js';

/** A connection on checked ground, at this package's schema version. */
export interface Opened extends MigrateResult {
  readonly db: Database;
}

/** How a connection is made; tests pass one that opens read-only to stand in for a read-only file. */
export type Connect = (path: string) => Database;

type GroundOptions = Pick<
  ResolvedOptions,
  'path' | 'busyTimeoutMs' | 'synchronous' | 'fileMode' | 'migrate' | 'checkOnOpen'
>;

const statOf = (path: string) => {
  try {
    return statSync(path);
  } catch (error) {
    if (Reflect.get(Object(error), 'code') === 'ENOENT') return undefined;
    throw new SqliteOpenError(path, 'cannot-open', `${path} cannot be read: ${String(error)}`, {
      cause: error,
    });
  }
};

/**
 * Where `path` points when it is a symbolic link whose target does not exist, else undefined.
 * SQLite would create the target: a file somewhere else, named by whoever made the link.
 */
function danglingTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** What `access()` answers for a path this process may not write. */
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * Whether this process may write `path`, as the file system says. Any other failure (Deno
 * without `--allow-sys` cannot ask) counts as writable: SQLite's own first write still decides.
 */
const writable = (path: string): boolean => {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch (error) {
    return !NOT_WRITABLE.has(String(Reflect.get(Object(error), 'code')));
  }
};

/**
 * What the file system says before SQLite is asked: SQLite's own words for these are vague
 * ("unable to open database file"), or come only at the first write.
 */
function checkGround(path: string): void {
  const stat = statOf(path);
  if (stat?.isDirectory() === true) {
    throw new SqliteOpenError(
      path,
      'directory',
      `${path} is a directory; path must name the database file inside it (for example ${path}/petstore.db)`,
    );
  }
  if (stat !== undefined && !stat.isFile()) {
    throw new SqliteOpenError(path, 'not-a-file', `${path} exists and is not a regular file`);
  }
  const target = stat === undefined ? danglingTarget(path) : undefined;
  if (target !== undefined) {
    throw new SqliteOpenError(
      path,
      'not-a-file',
      `${path} is a symbolic link to ${target}, which does not exist: the storage does not create a file through a link (create the target, or point path at it)`,
    );
  }
  const folder = dirname(path);
  if (stat === undefined && statOf(folder)?.isDirectory() !== true) {
    throw new SqliteOpenError(
      path,
      'no-folder',
      `cannot create ${path}: the folder ${folder} does not exist (the storage creates the file, not its folder)`,
    );
  }
  if (stat !== undefined && !writable(path)) {
    throw new SqliteOpenError(
      path,
      'read-only',
      `${path} is read-only: the storage writes to it (check its permissions and owner)`,
    );
  }
  if (!writable(folder)) {
    throw new SqliteOpenError(
      path,
      'read-only',
      `the folder ${folder} is read-only: the storage ${stat === undefined ? 'creates the file there, and ' : ''}creates ${path}-wal and ${path}-shm beside the file while it is open`,
    );
  }
}

/** `PRAGMA quick_check`: "ok", or what is damaged. Reads every page (about 1 s per GB). */
function quickCheck(db: Database, path: string): void {
  const rows = db.prepare('PRAGMA quick_check').all();
  const findings = rows.map((row) => String(row.quick_check));
  if (findings.length === 1 && findings[0] === 'ok') return;
  throw new SqliteOpenError(
    path,
    'damaged',
    `${path} is damaged: PRAGMA quick_check found ${findings.slice(0, 5).join('; ')}; restore it from a backup`,
  );
}

/** Blocks this thread for `ms` (node:sqlite is synchronous: so is waiting for its lock). */
const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * `PRAGMA journal_mode = WAL`, waiting up to `busyTimeoutMs` for the lock it takes. Two
 * processes opening one fresh file at once both ask for it, and SQLite answers one of them BUSY
 * at once rather than call its busy handler (waiting there could deadlock the two), so the
 * wait happens here: short pauses, doubling up to 50 ms, until the deadline.
 */
function switchToWal(db: Database, busyTimeoutMs: number): unknown {
  const deadline = Date.now() + busyTimeoutMs;
  for (let wait = 1; ; wait = Math.min(2 * wait, 50)) {
    try {
      return db.prepare('PRAGMA journal_mode = WAL').get()?.journal_mode;
    } catch (error) {
      const code = sqliteCode(error);
      const busy = code === SQLITE.BUSY || code === SQLITE.LOCKED;
      if (!busy || Date.now() >= deadline) throw error;
      pause(wait);
    }
  }
}

/** Write-ahead logging: readers never wait for the writer, and a commit appends to the WAL. */
function useWal(db: Database, path: string, busyTimeoutMs: number): void {
  const mode = switchToWal(db, busyTimeoutMs);
  if (mode !== 'wal') {
    throw new SqliteOpenError(
      path,
      'cannot-open',
      `${path} could not be switched to WAL journal mode (it stayed in ${String(mode)} mode)`,
    );
  }
}

/**
 * Opens `path` for the storage, refusing bad ground at once with a `SqliteOpenError` that says
 * what is wrong and where: a directory, a missing folder, a file that is not a database, a
 * damaged one, a read-only file or folder, a file another program keeps locked past the busy
 * timeout, a schema newer than this package. Then sets the pragmas and migrates (or checks the
 * version). Synchronous, like node:sqlite: a lock held elsewhere is waited for, up to
 * `busyTimeoutMs`, on this thread.
 */
export function openDatabase(options: GroundOptions, connectTo: Connect = connect): Opened {
  const { path, busyTimeoutMs } = options;
  checkGround(path);
  if (options.fileMode !== undefined) applyFileMode(path, options.fileMode);
  let doing = 'opening the file';
  let db: Database;
  try {
    db = connectTo(path);
  } catch (error) {
    throw openErrorOf(error, path, doing, busyTimeoutMs);
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    // Before the journal mode changes: that change is a write, synced as this says.
    db.exec(`PRAGMA synchronous = ${options.synchronous}`);
    db.exec('PRAGMA foreign_keys = ON');
    doing = 'switching to WAL journal mode';
    useWal(db, path, busyTimeoutMs);
    if (options.checkOnOpen) {
      doing = 'checking the file (PRAGMA quick_check)';
      quickCheck(db, path);
    }
    doing = options.migrate ? 'migrating' : 'checking the schema version';
    const result: MigrateResult = options.migrate
      ? migrateDatabase(db, path)
      : { applied: [], version: checkSchema(db, path) };
    return { db, ...result };
  } catch (error) {
    db.close();
    throw openErrorOf(error, path, doing, busyTimeoutMs);
  }
}
