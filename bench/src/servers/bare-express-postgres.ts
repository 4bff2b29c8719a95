import type { Express } from 'express';
import pg from 'pg';
import { bareExpressApp } from './bare-express.js';
import type { BarePet } from './bare-shared.js';

/**
 * The bare Express create, storing with one `pg` INSERT: what a hand-written
 * service on this database would do, for the create-on-PostgreSQL comparison.
 */
export function bareExpressPostgresApp(options: {
  databaseUrl: string;
  schema: string;
  poolMax: number;
}): {
  app: Express;
  close: () => Promise<void>;
} {
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolMax });
  pool.on('error', () => undefined);
  // Same statement as the storage's insertPet (packages/storage-postgres/src/queries.ts).
  const text = `INSERT INTO "${options.schema}".pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING id, name, category_id, status`;
  const app = bareExpressApp(async ({ name, categoryId, status }) => {
    const { rows } = await pool.query<{
      id: string;
      name: string;
      category_id: string;
      status: BarePet['status'];
    }>(text, [name, categoryId, status]);
    const row = rows[0];
    if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
    return {
      id: Number(row.id),
      name: row.name,
      categoryId: Number(row.category_id),
      status: row.status,
    };
  });
  return { app, close: () => pool.end() };
}
