import { migrate } from '@petstore/storage-postgres';
import pg from 'pg';

/** A schema name of this run, so a shared server (BENCH_DATABASE_URL) is never disturbed. */
export const benchSchema = (label: string): string => `bench_${label}_${process.pid}`;

/**
 * Creates the storage's schema with its own migrations, then seeds `count` pets in
 * one statement with generate_series: the same pets as `seedPet(id)` in fixtures.ts.
 */
export async function seedPostgres(url: string, schema: string, count: number): Promise<void> {
  await migrate({ connectionString: url, schema });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    if (count > 0) {
      await client.query(
        `INSERT INTO "${schema}".pets (name, category_id, status)
         SELECT 'pet-' || i, 1 + i % 50, (ARRAY['available', 'pending', 'sold'])[1 + i % 3]
         FROM generate_series(1, $1::int) AS i ORDER BY i`,
        [count],
      );
    }
    // Fresh statistics and visibility, as a database that has been running a while has.
    await client.query(`VACUUM (ANALYZE) "${schema}".pets`);
  } finally {
    await client.end();
  }
}

export async function dropSchemas(url: string, schemas: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
