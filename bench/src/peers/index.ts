import type { AddressInfo } from 'node:net';
import { nodePeerServer, type PeerOptions } from './contract.js';
import { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.js';
import { createPgStore, type PgStore, type PgStoreOptions } from './pg-store.js';
import type { PeerSeed, PeerStore } from './store.js';

/**
 * Hand-written peers of the library for the bench: the whole contract on `node:http`,
 * over memory or over PostgreSQL (`pg`), using no @petstore package and no valibot.
 */

export type { PeerApiKey } from './auth.js';
export { nodePeerServer, type PeerOptions } from './contract.js';
export { createMemoryStore, MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export {
  createPgSchema,
  createPgStore,
  PgStore,
  type PgStoreOptions,
  pgSchemaSql,
  seedPgPeer,
} from './pg-store.js';
export * from './store.js';

export interface RunningPeer<TStore extends PeerStore = PeerStore> {
  readonly port: number;
  /** The peer's store: seed it, or read what the peer stored. */
  readonly store: TStore;
  /** Stops the server (open connections too), then closes the store. */
  close(): Promise<void>;
}

/** Serves `store` on 127.0.0.1, a free port, mounted at `/v1`. */
export async function startNodePeer<TStore extends PeerStore>(
  store: TStore,
  options: PeerOptions,
): Promise<RunningPeer<TStore>> {
  const server = nodePeerServer(store, options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    store,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}

export interface MemoryPeerOptions extends PeerOptions, MemoryStoreOptions {
  readonly seed?: PeerSeed | undefined;
}

/** The peer over a fresh memory store, seeded first when `seed` is given. */
export async function startNodeMemoryPeer(
  options: MemoryPeerOptions,
): Promise<RunningPeer<MemoryStore>> {
  const store = createMemoryStore(options);
  if (options.seed !== undefined) await store.seed(options.seed);
  return startNodePeer(store, options);
}

export interface PgPeerOptions extends PeerOptions, PgStoreOptions {
  /** Create the schema and its tables first (it must not exist yet). Default false. */
  readonly createSchema?: boolean | undefined;
  readonly seed?: PeerSeed | undefined;
}

/** The peer over PostgreSQL, in `schema` (created first when asked), seeded when `seed` is given. */
export async function startNodePgPeer(options: PgPeerOptions): Promise<RunningPeer<PgStore>> {
  const store = createPgStore(options);
  try {
    if (options.createSchema === true) await store.createSchema();
    if (options.seed !== undefined) await store.seed(options.seed);
    return await startNodePeer(store, options);
  } catch (error) {
    await store.close();
    throw error;
  }
}
