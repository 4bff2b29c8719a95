/**
 * A server child: starts one server on 127.0.0.1 (port 0), reports its port,
 * and serves until the parent says stop or goes away. Runs pinned to the
 * server core, apart from the load generator.
 */
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server as HapiServer } from '@hapi/hapi';
import type { PetStorage } from '@petstore/core';
import { createPostgresStorage } from '@petstore/storage-postgres';
import type { Express } from 'express';
import { childChannel } from '../child.js';
import { bareExpressApp } from './bare-express.js';
import { bareExpressPostgresApp } from './bare-express-postgres.js';
import { bareHapiServer } from './bare-hapi.js';
import { benchStore, oursExpressApp, oursHapiServer, seededMemoryStorage } from './ours.js';

export type ServerSpec =
  | { readonly kind: 'express-bare' | 'express-ours' | 'hapi-bare' | 'hapi-ours' }
  | {
      readonly kind: 'express-ours-postgres' | 'express-bare-postgres';
      readonly databaseUrl: string;
      readonly schema: string;
      readonly poolMax: number;
    };

function listenExpress(app: Express): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) =>
      error ? reject(error) : resolve(server),
    );
  });
}

interface Running {
  readonly port: number;
  close(): Promise<void>;
}

async function runExpress(app: Express, storage?: Pick<PetStorage, 'close'>): Promise<Running> {
  const server = await listenExpress(app);
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await storage?.close();
    },
  };
}

async function runHapi(server: HapiServer): Promise<Running> {
  await server.start();
  return { port: server.info.port as number, close: () => server.stop({ timeout: 1000 }) };
}

async function start(spec: ServerSpec): Promise<Running> {
  switch (spec.kind) {
    case 'express-bare':
      return runExpress(bareExpressApp());
    case 'hapi-bare':
      return runHapi(bareHapiServer());
    case 'express-ours': {
      const storage = await seededMemoryStorage();
      return runExpress(oursExpressApp(benchStore(storage)), storage);
    }
    case 'hapi-ours':
      return runHapi(await oursHapiServer(benchStore(await seededMemoryStorage())));
    case 'express-ours-postgres': {
      const storage = createPostgresStorage({
        connectionString: spec.databaseUrl,
        schema: spec.schema,
        poolConfig: { max: spec.poolMax },
      });
      return runExpress(oursExpressApp(benchStore(storage)), storage);
    }
    case 'express-bare-postgres': {
      const { app, close } = bareExpressPostgresApp(spec);
      return runExpress(app, { close });
    }
  }
}

const spec = JSON.parse(process.argv[2] ?? '{}') as ServerSpec;
let running: Running | undefined;
const send = childChannel(async () => {
  await running?.close();
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
