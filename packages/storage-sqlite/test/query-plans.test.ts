import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Database } from '../src/driver.js';
import { migrateDatabase } from '../src/schema.js';
import { SQL } from '../src/statements.js';
import { tempFolder } from './support/files.js';

// The statements the storage runs, explained by SQLite on a file of 100,000 pets: each page must
// be a SEARCH of one index (O(limit + log n)), never a SCAN, never sorted in a temporary b-tree.
const ROWS = 100_000;
const folder = tempFolder('plans');
let db: Database;

/** EXPLAIN QUERY PLAN's lines for `sql` (parameters are not needed to plan). */
const planOf = (sql: string): string[] =>
  db
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all()
    .map((row) => String(row.detail));

/** A plan that reads one range of an index and stops: a SEARCH, no SCAN, no sort. */
function expectRangeOfOneIndex(plan: readonly string[], index: RegExp): void {
  expect(plan.filter((line) => /\bSCAN\b/.test(line))).toEqual([]);
  expect(plan.filter((line) => /TEMP B-TREE/.test(line))).toEqual([]);
  expect(plan.some((line) => /^SEARCH /.test(line) && index.test(line))).toBe(true);
}

beforeAll(() => {
  db = connect(folder.file());
  migrateDatabase(db, 'plans.db');
  // 60% available, 30% pending, 10% sold, interleaved through the ids.
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS})
    INSERT INTO pets (name, category_id, status)
    SELECT 'pet-' || i, (i % 1000) + 1,
      CASE WHEN i % 10 < 6 THEN 'available' WHEN i % 10 < 9 THEN 'pending' ELSE 'sold' END
    FROM n`);
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
    INSERT INTO orders (pet_id, quantity, ship_date, status, complete)
    SELECT i, 1, '2030-01-01T00:00:00.000Z', 'placed', 0 FROM n`);
});

afterAll(() => {
  db.close();
});

describe(`query plans on ${ROWS.toLocaleString('en')} pets`, () => {
  for (const analyzed of [false, true]) {
    describe(analyzed ? 'after ANALYZE (with statistics)' : 'without statistics', () => {
      beforeAll(() => {
        if (analyzed) db.exec('ANALYZE');
      });

      it('a page of pets: a range of the rowid (the id), no scan, no sort', () => {
        expect(planOf(SQL.pageOfPets)).toEqual(['SEARCH pets USING INTEGER PRIMARY KEY (rowid>?)']);
      });

      it('a page of one status: a range of pets_status_id (status=? AND id>?), no scan, no sort', () => {
        const plan = planOf(SQL.pageOfPetsByStatus);
        expectRangeOfOneIndex(plan, /USING INDEX pets_status_id \(status=\? AND id>\?\)/);
        expect(plan).toHaveLength(1);
      });

      it('a page of orders: a range of the rowid', () => {
        expect(planOf(SQL.pageOfOrders)).toEqual([
          'SEARCH orders USING INTEGER PRIMARY KEY (rowid>?)',
        ]);
      });

      it('getPet and the claim lookup: one row each, by key', () => {
        expect(planOf(SQL.selectPet)).toEqual(['SEARCH pets USING INTEGER PRIMARY KEY (rowid=?)']);
        const claim = planOf(SQL.selectClaim);
        expect(claim.filter((line) => /\bSCAN\b/.test(line))).toEqual([]);
        expect(claim.join('\n')).toMatch(
          /SEARCH c USING INDEX sqlite_autoindex_idempotency_keys_1 \(scope=\? AND key=\?\)/,
        );
        expect(claim.join('\n')).toMatch(/SEARCH p USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      });

      it('the purge reads the oldest expired claims by expires_at, not the whole table', () => {
        const plan = planOf(SQL.purgeExpiredClaims);
        expect(plan.filter((line) => /SCAN idempotency_keys\b(?! USING)/.test(line))).toEqual([]);
        expect(plan.join('\n')).toMatch(/idempotency_keys_expires_at \(expires_at<\?\)/);
      });
    });
  }

  it('the pages return what they should, reading from the cursor on', () => {
    const page = db.prepare(SQL.pageOfPetsByStatus).all('sold', ROWS - 100, 21);
    expect(page.map((row) => row.id)).toEqual([
      ROWS - 91,
      ROWS - 81,
      ROWS - 71,
      ROWS - 61,
      ROWS - 51,
      ROWS - 41,
      ROWS - 31,
      ROWS - 21,
      ROWS - 11,
      ROWS - 1,
    ]);
    expect(
      db
        .prepare(SQL.pageOfPets)
        .all(ROWS - 3, 21)
        .map((row) => row.id),
    ).toEqual([ROWS - 2, ROWS - 1, ROWS]);
  });

  it('the checks catch what they name: a scan, or a sort in a temporary b-tree', () => {
    // What a page would cost without the (status, id) index or with another order.
    const scan = planOf('SELECT id FROM pets NOT INDEXED WHERE status = ? AND id > ? ORDER BY id');
    expect(scan.join('\n')).toMatch(/SCAN|SEARCH pets USING INTEGER PRIMARY KEY/);
    expect(() => expectRangeOfOneIndex(scan, /pets_status_id/)).toThrow();
    const sorted = planOf('SELECT id FROM pets WHERE status = ? ORDER BY name LIMIT 21');
    expect(() => expectRangeOfOneIndex(sorted, /pets_status_id/)).toThrow();
    // INDEXED BY makes SQLite refuse the statement rather than plan around a missing index.
    db.exec('DROP INDEX pets_status_id');
    try {
      expect(() => db.prepare(SQL.pageOfPetsByStatus)).toThrow(/no such index/);
    } finally {
      db.exec('CREATE INDEX pets_status_id ON pets (status, id)');
    }
  });
});
