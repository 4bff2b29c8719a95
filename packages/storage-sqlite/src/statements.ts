import type { Database, Statement } from './driver.js';

/** Every statement the storage runs, prepared once when it opens and reused for every call. */
export interface Statements {
  readonly begin: Statement;
  readonly commit: Statement;
  readonly rollback: Statement;
  /** `name, category_id, status` → the pet. */
  readonly insertPet: Statement;
  /** `id` → the pet. */
  readonly selectPet: Statement;
  /** Keyset page: `afterId, limit`. */
  readonly pageOfPets: Statement;
  /** Keyset page of one status: `status, afterId, limit`. */
  readonly pageOfPetsByStatus: Statement;
  /** `pet_id, quantity, ship_date, status, complete` → the order. */
  readonly insertOrder: Statement;
  /** Keyset page: `afterId, limit`. */
  readonly pageOfOrders: Statement;
  /** `scope, key, now` → the live claim's fingerprint and its pet. */
  readonly selectClaim: Statement;
  /**
   * `scope, key, fingerprint, pet_id, created_at, expires_at, now`: writes the claim, replacing
   * an expired one under the same key, never a live one (then it changes nothing).
   */
  readonly writeClaim: Statement;
  /** `now`: deletes up to 1,000 expired claims, oldest first. */
  readonly purgeExpiredClaims: Statement;
}

const PET_COLUMNS = 'id, name, category_id, status';
const ORDER_COLUMNS = 'id, pet_id, quantity, ship_date, status, complete';

/**
 * The SQL. Pages read one range of an index and stop after `limit` rows, O(limit + log n):
 * unfiltered pages range over the table's own rowid order (`id` is the rowid), pages by status
 * over `pets_status_id (status, id)`, named with INDEXED BY so SQLite cannot pick another plan
 * (it would rather fail the statement). test/query-plans.test.ts checks both with EXPLAIN QUERY
 * PLAN: a SEARCH, no SCAN, no temporary b-tree for the ORDER BY.
 */
export const SQL = {
  insertPet: `INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${PET_COLUMNS}`,
  selectPet: `SELECT ${PET_COLUMNS} FROM pets WHERE id = ?`,
  pageOfPets: `SELECT ${PET_COLUMNS} FROM pets WHERE id > ? ORDER BY id LIMIT ?`,
  pageOfPetsByStatus: `SELECT ${PET_COLUMNS} FROM pets INDEXED BY pets_status_id
    WHERE status = ? AND id > ? ORDER BY id LIMIT ?`,
  insertOrder: `INSERT INTO orders (pet_id, quantity, ship_date, status, complete)
    VALUES (?, ?, ?, ?, ?) RETURNING ${ORDER_COLUMNS}`,
  pageOfOrders: `SELECT ${ORDER_COLUMNS} FROM orders WHERE id > ? ORDER BY id LIMIT ?`,
  selectClaim: `SELECT c.fingerprint, p.id, p.name, p.category_id, p.status
    FROM idempotency_keys c JOIN pets p ON p.id = c.pet_id
    WHERE c.scope = ? AND c.key = ? AND c.expires_at > ?`,
  writeClaim: `INSERT INTO idempotency_keys AS c
      (scope, key, fingerprint, pet_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint,
      pet_id = excluded.pet_id, created_at = excluded.created_at, expires_at = excluded.expires_at
      WHERE c.expires_at <= ?`,
  purgeExpiredClaims: `DELETE FROM idempotency_keys WHERE rowid IN (
    SELECT rowid FROM idempotency_keys WHERE expires_at <= ? ORDER BY expires_at LIMIT 1000)`,
} as const;

export function prepareStatements(db: Database): Statements {
  return {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    insertPet: db.prepare(SQL.insertPet),
    selectPet: db.prepare(SQL.selectPet),
    pageOfPets: db.prepare(SQL.pageOfPets),
    pageOfPetsByStatus: db.prepare(SQL.pageOfPetsByStatus),
    insertOrder: db.prepare(SQL.insertOrder),
    pageOfOrders: db.prepare(SQL.pageOfOrders),
    selectClaim: db.prepare(SQL.selectClaim),
    writeClaim: db.prepare(SQL.writeClaim),
    purgeExpiredClaims: db.prepare(SQL.purgeExpiredClaims),
  };
}
