import pg from 'pg';
import type { BareStore } from './bare-node.js';
import { type BarePet, firstPage } from './bare-shared.js';

interface PetRow {
  id: string;
  name: string;
  category_id: string;
  status: BarePet['status'];
}

const toPet = (row: PetRow): BarePet => ({
  id: Number(row.id),
  name: row.name,
  categoryId: Number(row.category_id),
  status: row.status,
});

/**
 * The bare routes' pets in PostgreSQL: the storage's own INSERT and first-page
 * SELECT (packages/storage-postgres/src/queries.ts), sent with `pg` on a pool,
 * with no transaction and no timeout: what a hand-written route on this
 * database does, for the PostgreSQL comparison.
 */
export function postgresBareStore(options: {
  databaseUrl: string;
  schema: string;
  poolMax: number;
}): BareStore & { close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolMax });
  pool.on('error', () => undefined);
  const pets = `"${options.schema}".pets`;
  const insert = `INSERT INTO ${pets} (name, category_id, status) VALUES ($1, $2, $3) RETURNING id, name, category_id, status`;
  const select = `SELECT id, name, category_id, status FROM ${pets} WHERE id > $1 ORDER BY id LIMIT $2`;
  return {
    async firstPage(limit) {
      // One row more than the page tells whether a next page exists, as the storage does.
      const { rows } = await pool.query<PetRow>(select, [0, limit + 1]);
      return firstPage(rows.map(toPet), limit);
    },
    async create({ name, categoryId, status }) {
      const { rows } = await pool.query<PetRow>(insert, [name, categoryId, status]);
      const row = rows[0];
      if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
      return toPet(row);
    },
    close: () => pool.end(),
  };
}
