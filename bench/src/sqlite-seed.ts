import { DatabaseSync } from 'node:sqlite';
import { migrate } from '@petstore/storage-sqlite';

/**
 * Creates a SQLite file with the storage's own migrations, then seeds `count` pets in one
 * statement (a recursive CTE, one transaction): the same pets as `seedPet(id)` in fixtures.ts,
 * ids 1..count. Then ANALYZE, as a file that has served a while has statistics.
 */
export function seedSqlite(path: string, count: number): void {
  migrate({ path });
  const db = new DatabaseSync(path);
  try {
    if (count > 0) {
      db.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO pets (name, category_id, status)
         SELECT 'pet-' || i, 1 + i % 50, CASE i % 3 WHEN 0 THEN 'available' WHEN 1 THEN 'pending' ELSE 'sold' END
         FROM n ORDER BY i`,
      ).run(count);
    }
    db.exec('ANALYZE');
  } finally {
    db.close();
  }
}
