import { randomBytes } from 'node:crypto';
import type { PetStorage } from '@petstore/core';
import { runConformance } from '@petstore/core/testing';
import { createPostgresStorage, migrate } from '@petstore/storage-postgres';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { honoApp, serveFetch, serveHono } from './servers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** From packages/storage-postgres/test/global-setup.ts: a PostgreSQL on 127.0.0.1. */
    postgresUrl: string;
  }
}

// The PostgreSQL server every test project shares (see vitest.config.ts); a new schema per case.
const admin = new pg.Pool({ connectionString: inject('postgresUrl'), max: 10 });
admin.on('error', () => undefined);
const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

async function freshStorage(): Promise<PetStorage> {
  const schema = `conf_fetch_${randomBytes(6).toString('hex')}`;
  schemas.push(schema);
  await migrate({ pool: admin, schema });
  return createPostgresStorage({ pool: admin, schema });
}

runConformance({
  name: 'fetch handler on @hono/node-server over postgres',
  storage: freshStorage,
  serve: (store) => serveFetch(store, { basePath: '/v1' }),
});

runConformance({
  name: 'fetch handler in a Hono app over postgres',
  storage: freshStorage,
  serve: (store) => serveHono(honoApp(store)),
});
