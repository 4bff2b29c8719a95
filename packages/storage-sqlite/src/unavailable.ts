import { StorageUnavailableError } from '@petstore/core';
import { SQLITE, sqliteCode, sqliteWords } from './driver.js';

/**
 * Result codes that say "not now" rather than "this request is wrong": another connection holds
 * the lock past the busy timeout, the disk (or `max_page_count`) is full, the file cannot be
 * written or read at the moment. Everything else (a constraint, a misuse, a damaged file) is a
 * bug or needs an operator, and stays a 500.
 */
const UNAVAILABLE_CODES = new Set<number>([
  SQLITE.BUSY,
  SQLITE.LOCKED,
  SQLITE.NOMEM,
  SQLITE.READONLY,
  SQLITE.IOERR,
  SQLITE.FULL,
  SQLITE.CANTOPEN,
  SQLITE.PROTOCOL,
]);

const NAMES: Readonly<Record<number, string>> = {
  [SQLITE.BUSY]: 'SQLITE_BUSY',
  [SQLITE.LOCKED]: 'SQLITE_LOCKED',
  [SQLITE.NOMEM]: 'SQLITE_NOMEM',
  [SQLITE.READONLY]: 'SQLITE_READONLY',
  [SQLITE.IOERR]: 'SQLITE_IOERR',
  [SQLITE.FULL]: 'SQLITE_FULL',
  [SQLITE.CANTOPEN]: 'SQLITE_CANTOPEN',
  [SQLITE.PROTOCOL]: 'SQLITE_PROTOCOL',
};

/** True when `error` means the file cannot serve right now (the core answers 503). */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StorageUnavailableError) return true;
  const code = sqliteCode(error);
  return code !== undefined && UNAVAILABLE_CODES.has(code);
}

/**
 * What a storage method rejects with: `StorageUnavailableError` (503 with `Retry-After`) for a
 * passing condition such as a full disk or a lock held too long, else the original error (500).
 */
export function toStorageError(error: unknown, retryAfterSeconds: number): unknown {
  if (error instanceof StorageUnavailableError || !isUnavailable(error)) return error;
  const code = sqliteCode(error) ?? 0;
  return new StorageUnavailableError(
    `SQLite is unavailable: ${sqliteWords(error)} (${NAMES[code] ?? `code ${code}`})`,
    { cause: error, retryAfterSeconds },
  );
}
