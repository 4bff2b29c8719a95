import type { Statements } from './statements.js';

/**
 * Runs `body` as one write transaction: `BEGIN IMMEDIATE` takes the file's write lock first
 * (waiting up to the busy timeout for another process's writer), so two connections never
 * interleave, and no write can fail halfway for want of the lock. Commits when `body` returns;
 * when anything throws, rolls back, so nothing of it is kept (SQLite may have rolled back by
 * itself already, after a full disk or an I/O error).
 */
export function writeTransaction<T>(statements: Statements, body: () => T): T {
  statements.begin.run();
  try {
    const result = body();
    statements.commit.run();
    return result;
  } catch (error) {
    try {
      statements.rollback.run();
    } catch {
      // No transaction left to roll back.
    }
    throw error;
  }
}
