import type { Database } from '../../src/driver.js';

/**
 * Whether `db` is inside a transaction: node:sqlite's `isTransaction` (Node 22.16 and later),
 * else what SQLite says to a BEGIN (refused inside a transaction), for Node 22.13 to 22.15.
 */
export function inTransaction(db: Database): boolean {
  const own: unknown = Reflect.get(db, 'isTransaction');
  if (typeof own === 'boolean') return own;
  try {
    db.exec('BEGIN');
  } catch {
    return true;
  }
  db.exec('ROLLBACK');
  return false;
}
