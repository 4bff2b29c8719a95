import { chmodSync, closeSync, constants, fchmodSync, openSync } from 'node:fs';
import { SqliteOpenError } from './open-error.js';

/** The files SQLite keeps beside the database while it is open (and after a crash). */
const COMPANIONS = ['-wal', '-shm', '-journal'] as const;

const codeOf = (error: unknown): unknown => Reflect.get(Object(error), 'code');

const octal = (mode: number): string => `0${mode.toString(8).padStart(3, '0')}`;

function refused(path: string, target: string, mode: number, error: unknown): SqliteOpenError {
  const owner = codeOf(error) === 'EPERM' ? ': only its owner can' : '';
  return new SqliteOpenError(
    path,
    'cannot-open',
    `cannot set the permissions of ${target} to ${octal(mode)}${owner} (${String(error)})`,
    { cause: error },
  );
}

/**
 * Creates `path` with `mode` when it is missing, whatever the umask (SQLite then opens an empty
 * file as a new database), and sets `mode` on an existing file and on any companion left from
 * before. SQLite creates a missing `-wal` or `-shm` with the database file's permissions, so
 * after this every file of the database has `mode`. A link is never followed to create a file.
 */
export function applyFileMode(path: string, mode: number): void {
  try {
    const fd = openSync(
      path,
      constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
      mode,
    );
    try {
      fchmodSync(fd, mode);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    // Another process made it first, or it was there: set the mode below.
    if (codeOf(error) !== 'EEXIST') throw refused(path, path, mode, error);
  }
  for (const target of [path, ...COMPANIONS.map((suffix) => `${path}${suffix}`)]) {
    try {
      chmodSync(target, mode);
    } catch (error) {
      if (codeOf(error) !== 'ENOENT' || target === path) throw refused(path, target, mode, error);
    }
  }
}
