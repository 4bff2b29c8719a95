import { SQLITE, sqliteCode, sqliteWords } from './driver.js';

/** What was wrong with the ground a storage was asked to open on. */
export type OpenProblem =
  | 'directory'
  | 'no-folder'
  | 'not-a-file'
  | 'cannot-open'
  | 'read-only'
  | 'not-a-database'
  | 'damaged'
  | 'locked'
  | 'newer-version'
  | 'not-migrated'
  | 'changed-migration';

/**
 * Thrown at open (never mid-request) when the file cannot serve: the message says what is wrong,
 * with the path, and `problem` says it for code.
 */
export class SqliteOpenError extends Error {
  override readonly name = 'SqliteOpenError';
  constructor(
    readonly path: string,
    readonly problem: OpenProblem,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The open error for what SQLite threw while opening, checking or migrating `path`; `doing`
 * says which (`'opening'`, `'checking'`...). Errors that are not SQLite's pass through.
 */
export function openErrorOf(
  error: unknown,
  path: string,
  doing: string,
  busyTimeoutMs: number,
): unknown {
  if (error instanceof SqliteOpenError) return error;
  const code = sqliteCode(error);
  if (code === undefined) return error;
  const words = sqliteWords(error);
  const cause = { cause: error };
  switch (code) {
    case SQLITE.NOTADB:
      return new SqliteOpenError(
        path,
        'not-a-database',
        `${path} is not a SQLite database (SQLite: ${words}); point path at a database file, or at a new name to create one`,
        cause,
      );
    case SQLITE.CORRUPT:
      return new SqliteOpenError(
        path,
        'damaged',
        `${path} is damaged (SQLite: ${words}); restore it from a backup`,
        cause,
      );
    case SQLITE.BUSY:
    case SQLITE.LOCKED:
      return new SqliteOpenError(
        path,
        'locked',
        `${path} is locked by another connection: no lock within busyTimeoutMs (${busyTimeoutMs} ms) while ${doing} (SQLite: ${words}); stop the other program or raise busyTimeoutMs`,
        cause,
      );
    case SQLITE.READONLY:
      return new SqliteOpenError(
        path,
        'read-only',
        `${path} cannot be written: the file or its folder is read-only (SQLite: ${words}); the storage needs to write the file and create ${path}-wal and ${path}-shm beside it`,
        cause,
      );
    case SQLITE.CANTOPEN:
      return new SqliteOpenError(
        path,
        'cannot-open',
        `${path} cannot be opened for writing while ${doing} (SQLite: ${words}); check that its folder exists and is writable, for the file and its -wal and -shm companions`,
        cause,
      );
    default:
      return new SqliteOpenError(
        path,
        'cannot-open',
        `${path}: SQLite failed while ${doing}: ${words}`,
        cause,
      );
  }
}
