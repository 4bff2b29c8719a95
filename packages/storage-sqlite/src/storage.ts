import {
  type IdempotencyClaim,
  type IdempotentCreateResult,
  type Order,
  type OrderInput,
  type PageQuery,
  type Pet,
  type PetInput,
  type PetPageQuery,
  type PetStorage,
  StorageUnavailableError,
} from '@petstore/core';
import type { Database } from './driver.js';
import { createPetIdempotently } from './idempotent-create.js';
import { type Connect, type Opened, openDatabase } from './open.js';
import { type ResolvedOptions, resolveOptions, type SqliteStorageOptions } from './options.js';
import { purgeExpiredClaims } from './purge.js';
import { checkPage, checkPetStatus, orderValues, petValues, toOrder, toPet } from './rows.js';
import { prepareStatements, type Statements } from './statements.js';
import { writeTransaction } from './transaction.js';
import { toStorageError } from './unavailable.js';

/** The storage port over one SQLite file, plus what it knows about that file. */
export interface SqliteStorage extends PetStorage {
  /** The database file, absolute. */
  readonly path: string;
  /** The file's schema version (this package's, once migrated). */
  readonly schemaVersion: number;
  /** Migrations applied when it opened (`['001_init', ...]` for a new file, else `[]`). */
  readonly migrationsApplied: readonly string[];
}

/** The connection behind each storage this package made, while it is open; for tests. */
const connections = new WeakMap<PetStorage, () => Database | undefined>();

/** The open connection of a storage this package made, or undefined (another kind, or closed). */
export const connectionOf = (storage: PetStorage): Database | undefined =>
  connections.get(storage)?.();

/** Whether `storage` was made by this package (open or closed). */
export const isSqliteStorage = (storage: PetStorage): storage is SqliteStorage =>
  connections.has(storage);

/**
 * The port over an open connection. Every method body is synchronous (node:sqlite is), so each
 * call is one critical section in this process; writes take the file's write lock, so other
 * processes on the same file wait their turn. Errors that mean "not now" (a full disk, a lock
 * held past the busy timeout, a file that became unwritable) reject with
 * `StorageUnavailableError` (503); anything else is the original error (500).
 * Exported for tests that prepare the connection first (a page limit); not public.
 */
export function storageOn(opened: Opened, options: ResolvedOptions): SqliteStorage {
  const { db } = opened;
  const statements: Statements = prepareStatements(db);
  const purging = purgeExpiredClaims(
    { statements, db, busyTimeoutMs: options.busyTimeoutMs },
    options.purgeIntervalMs,
    options.now,
  );
  let open = true;

  /** Runs one call's work, or rejects: closed, unavailable (503), or the error itself. */
  const use = <T>(work: (s: Statements) => T): Promise<T> => {
    if (!open) {
      return Promise.reject(
        new StorageUnavailableError('SQLite storage is closed', {
          retryAfterSeconds: options.retryAfterSeconds,
        }),
      );
    }
    try {
      return Promise.resolve(work(statements));
    } catch (error) {
      return Promise.reject(toStorageError(error, options.retryAfterSeconds));
    }
  };

  const storage: SqliteStorage = {
    path: options.path,
    schemaVersion: opened.version,
    migrationsApplied: opened.applied,

    createPet: (input: PetInput): Promise<Pet> =>
      use((s) =>
        writeTransaction(s, () => {
          const row = s.insertPet.get(...petValues(input));
          if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
          return toPet(row);
        }),
      ),

    createPetIdempotent: (
      input: PetInput,
      claim: IdempotencyClaim,
    ): Promise<IdempotentCreateResult> =>
      use((s) => createPetIdempotently(s, input, claim, options.now)),

    getPet: (id: number): Promise<Pet | undefined> =>
      use((s) => {
        const row = s.selectPet.get(id);
        return row === undefined ? undefined : toPet(row);
      }),

    listPets: (query: PetPageQuery): Promise<Pet[]> =>
      use((s) => {
        checkPage(query.afterId, query.limit);
        const afterId = query.afterId ?? 0;
        const rows =
          query.status === undefined
            ? s.pageOfPets.all(afterId, query.limit)
            : s.pageOfPetsByStatus.all(checkPetStatus(query.status), afterId, query.limit);
        return rows.map(toPet);
      }),

    createOrder: (input: OrderInput): Promise<Order> =>
      use((s) =>
        writeTransaction(s, () => {
          const row = s.insertOrder.get(...orderValues(input));
          if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
          return toOrder(row);
        }),
      ),

    listOrders: (query: PageQuery): Promise<Order[]> =>
      use((s) => {
        checkPage(query.afterId, query.limit);
        return s.pageOfOrders.all(query.afterId ?? 0, query.limit).map(toOrder);
      }),

    close: async (): Promise<void> => {
      if (!open) return;
      open = false;
      purging.stop();
      // The last connection to close checkpoints the WAL into the file and removes it.
      db.close();
    },
  };
  connections.set(storage, () => (open ? db : undefined));
  return storage;
}

/** Opens with a connection made by `connectTo`: for tests that stand in for odd ground. */
export function createSqliteStorageWith(
  options: SqliteStorageOptions,
  connectTo: Connect,
): SqliteStorage {
  const resolved = resolveOptions(options);
  return storageOn(openDatabase(resolved, connectTo), resolved);
}

/**
 * A `PetStorage` in one SQLite file, over Node's built-in `node:sqlite`. Opening is synchronous
 * and checks the ground: a path that cannot serve throws a `SqliteOpenError` saying why, here,
 * rather than failing requests later. The file is migrated to this version unless
 * `migrate: false`.
 */
export function createSqliteStorage(options: SqliteStorageOptions): SqliteStorage {
  const resolved = resolveOptions(options);
  return storageOn(openDatabase(resolved), resolved);
}
