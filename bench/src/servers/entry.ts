/**
 * A server child: starts one server on 127.0.0.1 (port 0), reports its port,
 * and serves until the parent says stop or goes away. Runs pinned to the
 * server core, apart from the load generator.
 */
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import type { Server as HapiServer } from '@hapi/hapi';
import type { PetStorage } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { createPostgresStorage } from '@petstore/storage-postgres';
import { createSqliteStorage } from '@petstore/storage-sqlite';
import type { Express } from 'express';
import type { FastifyInstance } from 'fastify';
import { childChannel } from '../child.js';
import { API_KEY, LIST_SEED_SIZE, seedPet } from '../fixtures.js';
import { docsAssetsServer } from '../measurements/docs-assets.js';
import { startFastifyPeer } from '../peers/fastify-peer.js';
import { createMemoryStore, createPgStore, nodePeerServer } from '../peers/index.js';
import { bareExpressApp } from './bare-express.js';
import { bareHapiServer } from './bare-hapi.js';
import { bareNodeServer } from './bare-node.js';
import { sqliteBareStore } from './bare-sqlite.js';
import {
  benchStore,
  oursExpressApp,
  oursFastifyApp,
  oursHapiServer,
  oursNodeServer,
  seededMemoryStorage,
} from './ours.js';
import { rawNodeServer } from './raw-node.js';
import type { ServerSpec } from './spec.js';

function listenExpress(app: Express): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) =>
      error ? reject(error) : resolve(server),
    );
  });
}

function listenNode(server: HttpServer): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function runFastify(
  app: FastifyInstance,
  storage?: Pick<PetStorage, 'close'>,
): Promise<Running> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    port: (app.server.address() as AddressInfo).port,
    close: async () => {
      await app.close();
      await storage?.close();
    },
  };
}

interface Running {
  readonly port: number;
  close(): Promise<void>;
}

async function runServer(
  server: HttpServer,
  storage?: Pick<PetStorage, 'close'>,
): Promise<Running> {
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await storage?.close();
    },
  };
}

const runExpress = async (app: Express, storage?: Pick<PetStorage, 'close'>) =>
  runServer(await listenExpress(app), storage);
const runNode = async (server: HttpServer, storage?: Pick<PetStorage, 'close'>) =>
  runServer(await listenNode(server), storage);

async function runHapi(server: HapiServer): Promise<Running> {
  await server.start();
  return { port: server.info.port as number, close: () => server.stop({ timeout: 1000 }) };
}

/** The pets every seeded store holds (fixtures.ts), for the peers' own stores. */
/**
 * Both PostgreSQL sides keep their idle connections (pg-pool's `idleTimeoutMillis: 0`). The
 * rounds interleave three servers for 3 s each, so a side sits idle up to 12 s between two of its
 * runs, past pg's default of 10 s: its pool then closed every connection, and the next run paid
 * for new backends and their first plans, a side at a time. A run of the write ceiling alone
 * opened 86 sessions for its 48 pool connections; with this, 54 (6 are the bench's own).
 */
const KEEP_IDLE_CONNECTIONS = 0;

const seedPets = () => Array.from({ length: LIST_SEED_SIZE }, (_, index) => seedPet(index + 1));

/**
 * What a hand-written peer is given: the bench's key and the OpenAPI document to serve as a
 * static file, as a hand-written app ships one (the library's, so both serve the same bytes).
 */
async function peerOptions() {
  const storage = createMemoryStorage();
  const openApiDocument = JSON.stringify(benchStore(storage).openApiDocument);
  await storage.close();
  return { apiKeys: [API_KEY], openApiDocument };
}

async function start(spec: ServerSpec): Promise<Running> {
  switch (spec.kind) {
    case 'express-bare':
      return runExpress(bareExpressApp());
    case 'hapi-bare':
      return runHapi(bareHapiServer());
    case 'fastify-ours': {
      const storage = await seededMemoryStorage();
      const app = await oursFastifyApp(benchStore(storage));
      return runFastify(app, storage);
    }
    case 'raw-bare':
      return runNode(rawNodeServer());
    case 'node-peer': {
      const store = createMemoryStore();
      await store.seed({ pets: seedPets() });
      return runNode(nodePeerServer(store, await peerOptions()), store);
    }
    case 'fastify-peer': {
      const peer = await startFastifyPeer({ ...(await peerOptions()), seed: { pets: seedPets() } });
      return { port: peer.port, close: () => peer.close() };
    }
    case 'node-peer-postgres': {
      const store = createPgStore({
        connectionString: spec.databaseUrl,
        schema: spec.schema,
        poolMax: spec.poolMax,
        idleTimeoutMillis: KEEP_IDLE_CONNECTIONS,
        // PgBouncer in transaction mode cannot carry named statements from one transaction to the next.
        namedStatements: spec.namedStatements ?? true,
      });
      return runNode(nodePeerServer(store, await peerOptions()), store);
    }
    case 'raw-ours':
    case 'node-ours': {
      const storage = await seededMemoryStorage();
      return runNode(oursNodeServer(benchStore(storage)), storage);
    }
    case 'express-ours': {
      const storage = await seededMemoryStorage();
      return runExpress(oursExpressApp(benchStore(storage)), storage);
    }
    case 'hapi-ours':
      return runHapi(await oursHapiServer(benchStore(await seededMemoryStorage())));
    case 'node-ours-postgres': {
      const storage = createPostgresStorage({
        connectionString: spec.databaseUrl,
        schema: spec.schema,
        poolConfig: { max: spec.poolMax, idleTimeoutMillis: KEEP_IDLE_CONNECTIONS },
      });
      return runNode(oursNodeServer(benchStore(storage)), storage);
    }
    case 'docs-assets':
      return runNode(await docsAssetsServer());
    case 'node-ours-sqlite': {
      const storage = createSqliteStorage({ path: spec.path });
      return runNode(oursNodeServer(benchStore(storage)), storage);
    }
    case 'node-bare-sqlite': {
      const store = sqliteBareStore(spec);
      return runNode(bareNodeServer(store), store);
    }
  }
}

const spec = JSON.parse(process.argv[2] ?? '{}') as ServerSpec;
let running: Running | undefined;
const send = childChannel(async () => {
  await running?.close();
});

/**
 * `{ type: 'event-loop-delay' }`: the p99 delay of this process's event loop (ms) since the
 * previous ask, then a fresh count. The first ask starts the monitor (10 ms resolution, Node's
 * default) and answers null, so servers nobody asks pay nothing.
 */
let delay: IntervalHistogram | undefined;
process.on('message', (message: { type?: string }) => {
  if (message.type !== 'event-loop-delay') return;
  const value = delay === undefined || delay.count === 0 ? null : delay.percentile(99) / 1e6;
  if (delay === undefined) {
    delay = monitorEventLoopDelay();
    delay.enable();
  } else delay.reset();
  send({ type: 'result', value });
});

start(spec).then(
  (server) => {
    running = server;
    send({ type: 'ready', port: server.port });
  },
  (error: unknown) => {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  },
);
