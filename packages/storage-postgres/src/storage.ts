import type {
  IdempotencyClaim,
  IdempotentCreateResult,
  Order,
  OrderInput,
  PageQuery,
  Pet,
  PetInput,
  PetPageQuery,
  PetStorage,
} from '@petstore/core';
import type { Pool } from 'pg';
import { createExecutor, type StatementOptions } from './executor.js';
import { createPetIdempotently } from './idempotent-create.js';
import {
  type PostgresStorageOptions,
  resolvePurgeInterval,
  resolveReplicaOptions,
  resolveSchema,
  resolveTimeouts,
} from './options.js';
import { createOwnedPool } from './pool.js';
import { resolveNamedStatements } from './prepared.js';
import { purgeExpiredClaims } from './purge.js';
import {
  type OrderRow,
  orderValues,
  type PetRow,
  petValues,
  queriesFor,
  toOrder,
  toPet,
} from './queries.js';
import { createReadRouter } from './replica.js';

/** The connections of the primary's pool now, as pg counts them: for a host's metrics. */
export interface PoolCounts {
  /** Open connections, idle or in use. */
  readonly totalCount: number;
  readonly idleCount: number;
  /** Queries waiting for a connection. */
  readonly waitingCount: number;
}

/** A `PetStorage` over PostgreSQL, and what a host may read off its pool. */
export interface PostgresStorage extends PetStorage {
  /** The primary pool's counts now (the storage's own pool, or the one the host gave). */
  poolCounts(): PoolCounts;
}

/**
 * A `PetStorage` over PostgreSQL. Run `migrate()` for the same schema first.
 *
 * Every method either resolves with committed data or rejects: with `StorageUnavailableError`
 * when the database is unreachable, restarting or too slow (the core answers 503), or with the
 * original error for anything else (a bug; the core answers 500).
 */
export function createPostgresStorage(options: PostgresStorageOptions): PostgresStorage {
  const timeouts = resolveTimeouts(options);
  const quotedSchema = resolveSchema(options.schema);
  const queries = queriesFor(quotedSchema);
  const ownsPool = options.pool === undefined;
  const pool: Pool = options.pool === undefined ? createOwnedPool(options, timeouts) : options.pool;

  // Reads from a replica, when one is given (see replica.ts); writes always on the primary.
  const replica = resolveReplicaOptions(options);
  const ownsReadPool = options.readPool === undefined && options.readConnectionString !== undefined;
  const readPool: Pool | undefined =
    options.readConnectionString === undefined
      ? options.readPool
      : createOwnedPool(
          {
            connectionString: options.readConnectionString,
            ...(options.readPoolConfig === undefined ? {} : { poolConfig: options.readPoolConfig }),
            ...('onPoolError' in options && options.onPoolError !== undefined
              ? { onPoolError: options.onPoolError }
              : {}),
          },
          { ...timeouts, connectionTimeoutMillis: replica.timeoutMillis },
        );

  let closing: Promise<void> | undefined;
  const isClosed = () => closing !== undefined;
  const namedStatements = resolveNamedStatements(options.namedStatements);
  const onWarning = options.onWarning ?? ((message: string) => process.emitWarning(message));
  const statements = (ownPool: boolean): StatementOptions => ({
    namedStatements,
    ownPool,
    onWarning,
  });
  const run = createExecutor(pool, timeouts, isClosed, statements(ownsPool));
  const reads =
    readPool === undefined
      ? run
      : createReadRouter(
          run,
          readPool,
          timeouts,
          replica,
          isClosed,
          statements(ownsReadPool),
          options.onReplicaRead,
        );
  const purging = purgeExpiredClaims(run, queries, resolvePurgeInterval(options));

  return {
    async createPet(input: PetInput): Promise<Pet> {
      const [row] = await run.write<{ id: number }>(queries.insertPet, petValues(input));
      if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
      // The row holds what was sent; the contract's key order.
      return { id: row.id, name: input.name, categoryId: input.categoryId, status: input.status };
    },

    createPetIdempotent(input: PetInput, claim: IdempotencyClaim): Promise<IdempotentCreateResult> {
      return createPetIdempotently(run, queries, quotedSchema, input, claim);
    },

    async getPet(id: number): Promise<Pet | undefined> {
      const [row] = await reads.read<PetRow>(queries.selectPet, [id]);
      return row === undefined ? undefined : toPet(row);
    },

    async listPets(query: PetPageQuery): Promise<Pet[]> {
      const afterId = query.afterId ?? 0;
      const rows =
        query.status === undefined
          ? await reads.read<PetRow>(queries.pageOfPets, [afterId, query.limit])
          : await reads.read<PetRow>(queries.pageOfPetsByStatus, [
              afterId,
              query.status,
              query.limit,
            ]);
      return rows.map(toPet);
    },

    async createOrder(input: OrderInput): Promise<Order> {
      const [row] = await run.write<OrderRow>(queries.insertOrder, orderValues(input));
      if (row === undefined) throw new Error('INSERT ... RETURNING returned no row');
      return toOrder(row);
    },

    async listOrders(query: PageQuery): Promise<Order[]> {
      const rows = await reads.read<OrderRow>(queries.pageOfOrders, [
        query.afterId ?? 0,
        query.limit,
      ]);
      return rows.map(toOrder);
    },

    poolCounts: () => ({
      totalCount: pool.totalCount,
      idleCount: pool.idleCount,
      waitingCount: pool.waitingCount,
    }),

    close(): Promise<void> {
      purging.stop();
      // The host's pools stay open: they may serve other code and the host ends them itself.
      closing ??= Promise.all([
        ownsPool ? pool.end() : undefined,
        ownsReadPool ? readPool?.end() : undefined,
      ]).then(() => undefined);
      return closing;
    },
  };
}
