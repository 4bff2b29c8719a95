import { dirname } from 'node:path';
import type { PetStatus, PetStorage } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import type { PoolCounts } from '@petstore/storage-postgres';
import type { AppConfig, StorageChoice } from './config.js';
import { DATA_FILE_MODE, ownerOnlyFolder } from './data-folder.js';
import type { Logger } from './logging.js';
import { type ReplicaReads, watchReplicaReads } from './replica-reads.js';

export interface OpenedStorage {
  readonly storage: PetStorage;
  /** For the start-up line: which storage, and for a file, where. */
  readonly description: string;
  /** On PostgreSQL: the pool's connection counts, for the metrics. */
  readonly poolCounts?: () => PoolCounts;
  /** With DATABASE_READ_URL: where reads went, for the metrics. */
  readonly replicaReads?: ReplicaReads;
}

/** How long start-up waits for PostgreSQL before giving up. */
const MIGRATE_CONNECT_TIMEOUT_MS = 5000;

/**
 * The storage DATABASE_URL names (see `StorageChoice`): a SQLite file by default, PostgreSQL, or
 * memory. Each storage package (and `pg`) is loaded only when it is used. A file or database
 * that cannot serve fails the start, with the storage's own reason: better a clear exit than a
 * service that is never ready.
 */
export async function openStorage(
  config: Pick<AppConfig, 'storage' | 'pgPoolMax'>,
  logger?: Logger,
): Promise<OpenedStorage> {
  const choice = config.storage;
  if (choice.kind === 'memory') {
    return { storage: createMemoryStorage(), description: 'in-memory (data is lost on exit)' };
  }
  if (choice.kind === 'sqlite') return openSqlite(choice);
  return openPostgres(choice.url, config.pgPoolMax, logger, choice.readUrl);
}

/**
 * SQLite in one file, readable by its owner alone; the default file's folder is made, or set, for
 * the user alone (0700), a named file's folder must exist. Two services on one file work together: writes take turns, and a keyed
 * create is stored once (the storage's README).
 */
async function openSqlite(choice: Extract<StorageChoice, { kind: 'sqlite' }>) {
  if (choice.byDefault) await ownerOnlyFolder(dirname(choice.path));
  const { createSqliteStorage } = await import('@petstore/storage-sqlite');
  // The file, its -wal and -shm: its owner's alone, whatever the umask.
  const storage = createSqliteStorage({ path: choice.path, fileMode: DATA_FILE_MODE });
  const where = choice.byDefault ? ' (the default: DATABASE_URL is unset)' : '';
  return { storage, description: `SQLite file ${choice.path}${where}` };
}

async function openPostgres(
  connectionString: string,
  poolMax: number,
  logger: Logger | undefined,
  readUrl?: string,
): Promise<OpenedStorage> {
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
  // PG_POOL_MAX: instances x this must fit the pooler's (or the server's) connections. With
  // DATABASE_READ_URL, lists and gets go to a replica (the storage falls back to the primary
  // when it is behind or away), through a pool as large as the primary's; a replica it cannot
  // use is logged, and where reads went is counted.
  const replicaReads = readUrl === undefined ? undefined : watchReplicaReads(logger);
  const storage = createPostgresStorage({
    connectionString,
    poolConfig: { max: poolMax },
    // The pool already dropped the connection and reconnects on the next query.
    onPoolError: (error) => logger?.warn({ reason: error.message }, 'PostgreSQL connection lost'),
    ...(readUrl === undefined || replicaReads === undefined
      ? {}
      : {
          readConnectionString: readUrl,
          readPoolConfig: { max: poolMax },
          onReplicaRead: replicaReads.onRead,
        }),
  });
  return {
    storage,
    description: readUrl === undefined ? 'PostgreSQL' : 'PostgreSQL (reads from DATABASE_READ_URL)',
    poolCounts: storage.poolCounts,
    ...(replicaReads === undefined ? {} : { replicaReads }),
  };
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
