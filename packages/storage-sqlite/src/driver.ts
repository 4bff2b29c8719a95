import * as sqlite from 'node:sqlite';

/** A connection: node:sqlite's `DatabaseSync`, the one driver this package uses. */
export type Database = sqlite.DatabaseSync;
/** A statement prepared once on a connection and run many times. */
export type Statement = sqlite.StatementSync;

/** Opens a connection to `path` (creating the file when missing); synchronous, like every call. */
export const connect = (path: string): Database => new sqlite.DatabaseSync(path);

/**
 * node:sqlite's online backup (`backup(db, path)`), where this Node has it: 22.16 and later,
 * 23.8 and later. Undefined on 22.13 to 22.15, where `VACUUM INTO` does the job instead.
 */
export const onlineBackup: typeof sqlite.backup | undefined =
  typeof Reflect.get(sqlite, 'backup') === 'function' ? sqlite.backup : undefined;

/** SQLite's primary result codes this package tells apart (https://sqlite.org/rescode.html). */
export const SQLITE = {
  BUSY: 5,
  LOCKED: 6,
  NOMEM: 7,
  READONLY: 8,
  IOERR: 10,
  CORRUPT: 11,
  FULL: 13,
  CANTOPEN: 14,
  PROTOCOL: 15,
  NOTADB: 26,
} as const;

/**
 * The primary SQLite result code of an error node:sqlite threw (`errcode` holds the extended
 * code, whose low byte is the primary one), or undefined for any other error.
 */
export function sqliteCode(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const errcode: unknown = Reflect.get(error, 'errcode');
  return typeof errcode === 'number' ? errcode & 0xff : undefined;
}

/** SQLite's own words for an error (`errstr`), else its message. */
export function sqliteWords(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const message: unknown = Reflect.get(error, 'message');
  return typeof message === 'string' ? message : String(error);
}
