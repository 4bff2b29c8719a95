import type { PetStore } from '@petstore/core';
import { type ConformanceTarget, runConformance } from '@petstore/core/testing';
import { afterAll } from 'vitest';
import { hostPool } from './database.js';
import { freshStorages } from './fresh-storage.js';

/** The conformance suite through one adapter, each case on a new migrated schema. */
export function runConformanceOverPostgres(
  adapter: string,
  serve: (store: PetStore) => ConformanceTarget | Promise<ConformanceTarget>,
): void {
  const admin = hostPool();
  const storages = freshStorages(admin, `conf_${adapter}`);
  afterAll(async () => {
    await storages.dispose();
    await admin.end();
  });
  runConformance({ name: `${adapter} over postgres`, storage: storages.next, serve });
}
