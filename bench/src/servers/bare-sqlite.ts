import { createHash } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { API_KEY } from '../fixtures.js';
import type { BareStore, KeyedCreate } from './bare-node.js';
import { type BarePet, firstPage } from './bare-shared.js';

interface PetRow {
  id: number;
  name: string;
  category_id: number;
  status: BarePet['status'];
}

const toPet = (row: PetRow): BarePet => ({
  id: row.id,
  name: row.name,
  categoryId: row.category_id,
  status: row.status,
});

/** As the core's default: a claim lives 24 hours. */
const RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * The storage's own statements (packages/storage-sqlite/src/statements.ts), copied rather than
 * imported: the bare route uses no @petstore package. test/sqlite-statements.test.ts keeps the
 * copies equal to the storage's.
 */
export const BARE_SQLITE_SQL = {
  insertPet:
    'INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING id, name, category_id, status',
  pageOfPets: 'SELECT id, name, category_id, status FROM pets WHERE id > ? ORDER BY id LIMIT ?',
  selectClaim: `SELECT c.fingerprint, p.id, p.name, p.category_id, p.status
    FROM idempotency_keys c JOIN pets p ON p.id = c.pet_id
    WHERE c.scope = ? AND c.key = ? AND c.expires_at > ?`,
  writeClaim: `INSERT INTO idempotency_keys AS c
      (scope, key, fingerprint, pet_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (scope, key) DO UPDATE SET fingerprint = excluded.fingerprint,
      pet_id = excluded.pet_id, created_at = excluded.created_at, expires_at = excluded.expires_at
      WHERE c.expires_at <= ?`,
} as const;

/**
 * The bare route's pets in a SQLite file (already migrated by the storage's own migrations, see
 * sqlite-seed.ts), over `node:sqlite` directly: the same pragmas as the storage (WAL, busy
 * timeout 5 s, synchronous NORMAL, foreign keys), the storage's statements prepared once, a plain
 * create in one `BEGIN IMMEDIATE` transaction as the storage's, and the keyed create storing its
 * claim with the pet in one `BEGIN IMMEDIATE` transaction (a live claim replays its pet).
 */
export function sqliteBareStore(options: { path: string }): BareStore & { close(): Promise<void> } {
  const db = new DatabaseSync(options.path);
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('PRAGMA journal_mode = WAL');
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const insertPet = db.prepare(BARE_SQLITE_SQL.insertPet);
  const pageOfPets = db.prepare(BARE_SQLITE_SQL.pageOfPets);
  const selectClaim = db.prepare(BARE_SQLITE_SQL.selectClaim);
  const writeClaim = db.prepare(BARE_SQLITE_SQL.writeClaim);
  // One key, so one scope: its digest, as a hand-written route would name the caller.
  const scope = createHash('sha256').update(API_KEY).digest('base64url');

  const inTransaction = <T>(body: () => T): T => {
    begin.run();
    try {
      const result = body();
      commit.run();
      return result;
    } catch (error) {
      try {
        rollback.run();
      } catch {
        // Nothing left to roll back.
      }
      throw error;
    }
  };
  const insert = ({ name, categoryId, status }: Omit<BarePet, 'id'>): BarePet => {
    const row = insertPet.get(name, categoryId, status) as PetRow | undefined;
    if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
    return toPet(row);
  };
  const answer = (row: PetRow & { fingerprint: string }, fingerprint: string): KeyedCreate =>
    row.fingerprint === fingerprint ? { pet: toPet(row), replayed: true } : 'mismatch';

  return {
    firstPage(limit) {
      // One row more than the page tells whether a next page exists, as the storage does.
      return firstPage((pageOfPets.all(0, limit + 1) as unknown as PetRow[]).map(toPet), limit);
    },
    create: (pet) => inTransaction(() => insert(pet)),
    createKeyed(pet, key, fingerprint) {
      type ClaimRow = PetRow & { fingerprint: string };
      const seen = selectClaim.get(scope, key, Date.now()) as ClaimRow | undefined;
      if (seen !== undefined) return answer(seen, fingerprint);
      return inTransaction((): KeyedCreate => {
        const at = Date.now();
        const raced = selectClaim.get(scope, key, at) as ClaimRow | undefined;
        if (raced !== undefined) return answer(raced, fingerprint);
        const stored = insert(pet);
        const { changes } = writeClaim.run(
          scope,
          key,
          fingerprint,
          stored.id,
          at,
          at + RETENTION_MS,
          at,
        );
        if (Number(changes) !== 1) throw new Error('the Idempotency-Key claim was not written');
        return { pet: stored, replayed: false };
      });
    },
    close: async () => db.close(),
  };
}
