import type { PetStatus, PetStorage } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import type { AppConfig } from './config.js';
import type { Logger } from './logging.js';

export interface OpenedStorage {
  readonly storage: PetStorage;
  /** For the start-up line: `in-memory` or `PostgreSQL`. */
  readonly description: string;
}

/** How long start-up waits for PostgreSQL before giving up. */
const MIGRATE_CONNECT_TIMEOUT_MS = 5000;

/**
 * In memory unless DATABASE_URL is set. The PostgreSQL package (and `pg`) is
 * only loaded when it is used; its migrations run first (idempotent, and safe
 * with several instances starting at once). A database that cannot be reached
 * at start fails the start: better a clear exit than a service that is never ready.
 */
export async function openStorage(
  config: Pick<AppConfig, 'databaseUrl'>,
  logger?: Logger,
): Promise<OpenedStorage> {
  const connectionString = config.databaseUrl;
  if (connectionString === undefined) {
    return { storage: createMemoryStorage(), description: 'in-memory (data is lost on exit)' };
  }
  const { createPostgresStorage, migrate } = await import('@petstore/storage-postgres');
  try {
    await migrate({ connectionString, connectionTimeoutMillis: MIGRATE_CONNECT_TIMEOUT_MS });
  } catch (error) {
    // pg's messages name the host and port, never the password in the URL.
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot migrate the PostgreSQL database at DATABASE_URL: ${reason}`, {
      cause: error,
    });
  }
  const storage = createPostgresStorage({
    connectionString,
    // The pool already dropped the connection and reconnects on the next query.
    onPoolError: (error) => logger?.warn({ reason: error.message }, 'PostgreSQL connection lost'),
  });
  return { storage, description: 'PostgreSQL' };
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
