import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PetStorage } from '@petstore/core';
import { connect, type Database, onlineBackup } from './driver.js';
import { SqliteOpenError } from './open-error.js';
import { DEFAULT_BUSY_TIMEOUT_MS, resolvePath } from './options.js';
import { isSqliteStorage } from './storage.js';

export interface BackupOptions {
  /** With a path as the source: how long to wait for a lock another connection holds. Default 5000. */
  readonly busyTimeoutMs?: number;
  /**
   * `'backup-api'`: node:sqlite's `backup()`, page by page off the main thread (Node 22.16 and
   * later); `'vacuum-into'`: `VACUUM INTO`, one statement on this thread (any Node). Default: the
   * backup API where this Node has it.
   */
  readonly method?: 'backup-api' | 'vacuum-into';
}

export interface BackupResult {
  /** The copy, absolute. */
  readonly destination: string;
  /** Its size in bytes. */
  readonly bytes: number;
  readonly method: 'backup-api' | 'vacuum-into';
}

const COMPANIONS = ['', '-wal', '-shm', '-journal'];

const removeWithCompanions = (path: string): void => {
  for (const suffix of COMPANIONS) rmSync(`${path}${suffix}`, { force: true });
};

/** The copy must be a whole, sound database: checked before it takes the destination's name. */
function checkCopy(path: string): void {
  const copy = connect(path);
  try {
    const rows = copy.prepare('PRAGMA quick_check').all();
    if (rows.length !== 1 || rows[0]?.quick_check !== 'ok') {
      throw new Error(`the copy at ${path} failed PRAGMA quick_check`);
    }
    // One self-contained file: a storage opening the copy switches it back to WAL.
    copy.exec('PRAGMA journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** Opens an existing file as a backup source (never creates one). */
function openSource(path: string, busyTimeoutMs: number): Database {
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    // Reported below.
  }
  if (!isFile) {
    throw new SqliteOpenError(path, 'not-a-file', `cannot back up ${path}: there is no such file`);
  }
  const db = connect(path);
  db.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  return db;
}

/** Pages per backup step: all of them, so the copy is one read transaction (see below). */
const ALL_PAGES = 2_147_483_647;

/**
 * An online copy of a database to `destination`, while it serves: of a storage this package
 * opened, or of a file by its path. The copy is made on a connection of its own, as one read
 * transaction: in WAL mode the storage's writes go on meanwhile (none of them in the copy, which
 * is the file as it was when the copy began), and a page-by-page copy that writes would restart
 * is avoided. With the backup API the pages are copied off the main thread; `VACUUM INTO` runs
 * on it. The copy is written beside the destination under a temporary name, checked with
 * `PRAGMA quick_check`, switched to a single self-contained file (journal mode DELETE), then
 * renamed into place: the destination is either what it was or a whole new copy. An existing
 * destination is replaced.
 */
export async function backup(
  source: PetStorage | string,
  destination: string,
  options: BackupOptions = {},
): Promise<BackupResult> {
  const target = resolvePath(destination);
  const method = options.method ?? (onlineBackup === undefined ? 'vacuum-into' : 'backup-api');
  const useApi = method === 'backup-api' ? onlineBackup : undefined;
  if (method === 'backup-api' && useApi === undefined) {
    throw new Error(`node:sqlite has no backup() on Node ${process.version}; use 'vacuum-into'`);
  }
  const sourcePath = typeof source === 'string' ? resolvePath(source) : pathOf(source);
  if (sourcePath === target) throw new Error(`cannot back up ${target} onto itself`);
  if (statOrUndefined(dirname(target))?.isDirectory() !== true) {
    throw new Error(`cannot write ${target}: the folder ${dirname(target)} does not exist`);
  }
  const db = openSource(sourcePath, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
  const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    if (useApi !== undefined) await useApi(db, partial, { rate: ALL_PAGES });
    else db.prepare('VACUUM INTO ?').run(partial);
    checkCopy(partial);
    renameSync(partial, target);
    return { destination: target, bytes: statSync(target).size, method };
  } finally {
    removeWithCompanions(partial);
    db.close();
  }
}

/** The file of a storage this package made. */
function pathOf(storage: PetStorage): string {
  const path = isSqliteStorage(storage) ? storage.path : undefined;
  if (path === undefined) {
    throw new TypeError('backup() takes a storage from createSqliteStorage, or a file path');
  }
  return path;
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
