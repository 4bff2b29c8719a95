import type { PetStatus, PetStorage } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import type { AppConfig } from './config.js';

export interface OpenedStorage {
  readonly storage: PetStorage;
  /** For the start-up line: `in-memory` or `PostgreSQL`. */
  readonly description: string;
}

/**
 * In memory unless DATABASE_URL is set. The PostgreSQL package (and `pg`) is
 * only loaded when it is used; its migrations run first (idempotent, and safe
 * with several instances starting at once).
 */
export async function openStorage(config: Pick<AppConfig, 'databaseUrl'>): Promise<OpenedStorage> {
  const connectionString = config.databaseUrl;
  if (connectionString === undefined) {
    return { storage: createMemoryStorage(), description: 'in-memory (data is lost on exit)' };
  }
  const { createPostgresStorage, migrate } = await import('@petstore/storage-postgres');
  await migrate({ connectionString });
  return { storage: createPostgresStorage({ connectionString }), description: 'PostgreSQL' };
}

const NAMES = ['Rex', 'Tom', 'Bella', 'Max', 'Luna', 'Charlie', 'Milo', 'Daisy'];
const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];

/** Creates `count` demo pets, only in an empty storage, so restarts do not pile them up. */
export async function seedPets(storage: PetStorage, count: number): Promise<number> {
  if (count === 0 || (await storage.listPets({ limit: 1 })).length > 0) return 0;
  for (let index = 0; index < count; index++) {
    await storage.createPet({
      name: `${NAMES[index % NAMES.length]} ${index + 1}`,
      categoryId: (index % 3) + 1,
      status: STATUSES[index % STATUSES.length] ?? 'available',
    });
  }
  return count;
}
