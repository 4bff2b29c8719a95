import type { PetStorage } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { createPostgresStorage } from '@petstore/storage-postgres';
import pg from 'pg';
import type { OpenStorage } from './app.js';

/** Memory, or PostgreSQL on a schema the suite migrated: what Bun and Deno run over. */
export const openStorage: OpenStorage = async (spec) => {
  if (spec.kind === 'memory') return createMemoryStorage();
  const pool = new pg.Pool({ connectionString: spec.url, max: 4 });
  pool.on('error', () => undefined);
  const storage = createPostgresStorage({ pool, schema: spec.schema });
  // The storage leaves a pool it was given open: this one is the harness's, so it goes too.
  return {
    ...storage,
    close: async () => {
      await storage.close();
      await pool.end();
    },
  } satisfies PetStorage;
};
