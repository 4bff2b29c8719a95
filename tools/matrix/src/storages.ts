import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PetStorage } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import * as storagePostgres from '@petstore/storage-postgres';
import { createSqliteStorage } from '@petstore/storage-sqlite';
import { freshStorages, hostPool, pgbouncerUrl } from '@petstore/test-postgres/vitest';
import pg from 'pg';
import { afterAll } from 'vitest';

/** A storage kind: fresh, empty storages on demand, for one test file. */
export interface StorageKind {
  readonly name: string;
  /** Why this kind cannot run here, or undefined (the global setup has said so once). */
  readonly unavailable?: () => string | undefined;
  /** Makes the factory; registers its own clean-up with the file's `afterAll`. */
  open(prefix: string): () => Promise<PetStorage>;
}

function postgresOver(pool: () => pg.Pool, prefix: string): () => Promise<PetStorage> {
  const admin = pool();
  const storages = freshStorages(admin, prefix, storagePostgres);
  afterAll(async () => {
    await storages.dispose();
    await admin.end();
  });
  return storages.next;
}

/**
 * A new database file per storage, in a folder of the test file's own (made at the first one, so
 * a run that filters these cases out leaves nothing behind), removed after the file's tests.
 */
function sqliteFiles(prefix: string): () => Promise<PetStorage> {
  let dir: string | undefined;
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  let count = 0;
  return async () => {
    dir ??= mkdtempSync(join(tmpdir(), `petstore-matrix-${prefix}-`));
    count += 1;
    return createSqliteStorage({ path: join(dir, `${count}.db`) });
  };
}

export const STORAGES = {
  memory: { name: 'memory', open: () => async () => createMemoryStorage() },
  postgres: {
    name: 'postgres',
    open: (prefix) => postgresOver(() => hostPool(), `conf_${prefix}`),
  },
  pgbouncer: {
    name: 'postgres through PgBouncer',
    unavailable: () => (pgbouncerUrl() === '' ? 'no pgbouncer binary' : undefined),
    open: (prefix) =>
      postgresOver(() => {
        const pool = new pg.Pool({ connectionString: pgbouncerUrl(), max: 10 });
        pool.on('error', () => undefined);
        return pool;
      }, `bouncer_${prefix}`),
  },
  sqlite: { name: 'sqlite', open: (prefix) => sqliteFiles(prefix) },
} satisfies Record<string, StorageKind>;

export type StorageName = keyof typeof STORAGES;
