import type { PetStorage } from '@petstore/core';
import type pg from 'pg';
import { dropSchema, uniqueSchema } from './database.js';

/**
 * What this needs of `@petstore/storage-postgres`, passed in (`import * as storagePostgres`):
 * that package's own tests use this module, so it cannot depend on it.
 */
export interface PostgresStorageModule {
  migrate(options: { pool: pg.Pool; schema: string }): Promise<unknown>;
  createPostgresStorage(options: { pool: pg.Pool; schema: string }): PetStorage;
}

/**
 * Hands out storages on new, migrated schemas, one per call, for runners (like runConformance)
 * that ask for a fresh storage per case and only close it afterwards. Closing drops the schema.
 * The next schema is migrated while the current case runs, and drops finish in the background:
 * a migration costs more than most cases.
 */
export interface FreshStorages {
  /** A storage on its own new schema. */
  readonly next: () => Promise<PetStorage>;
  /** Drops every schema handed out (and the spare); call before ending `admin`. */
  dispose(): Promise<void>;
}

export function freshStorages(
  admin: pg.Pool,
  prefix: string,
  { migrate, createPostgresStorage }: PostgresStorageModule,
): FreshStorages {
  const prepare = async (): Promise<string> => {
    const schema = uniqueSchema(prefix);
    await migrate({ pool: admin, schema });
    return schema;
  };
  let next: Promise<string> | undefined;
  const drops: Promise<void>[] = [];
  const nextStorage = async (): Promise<PetStorage> => {
    const schema = await (next ?? prepare());
    next = prepare();
    next.catch(() => undefined); // reported by whichever call awaits it
    const storage = createPostgresStorage({ pool: admin, schema });
    let closed: Promise<void> | undefined;
    return {
      ...storage,
      close() {
        closed ??= storage.close().then(() => {
          drops.push(dropSchema(admin, schema));
        });
        return closed;
      },
    };
  };
  return {
    next: nextStorage,
    async dispose() {
      const spare = await next?.catch(() => undefined);
      next = undefined;
      if (spare !== undefined) drops.push(dropSchema(admin, spare));
      await Promise.all(drops);
    },
  };
}
