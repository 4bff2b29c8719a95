import { createServer, type Server } from 'node:http';
import Hapi from '@hapi/hapi';
import { createAdaptorServer } from '@hono/node-server';
import {
  type ConformanceTarget,
  coreTarget,
  httpTarget,
  type RunningServer,
  serveNodeServer,
} from '@petstore/conformance';
import type { PetStore } from '@petstore/core';
import { petStoreRouter } from '@petstore/express';
import { petStorePlugin as fastifyPlugin, petStoreServerOptions } from '@petstore/fastify';
import { petStoreFetch } from '@petstore/fetch';
import { petStorePlugin as hapiPlugin } from '@petstore/hapi';
import {
  installClientErrorHandler,
  petStoreListener,
  serializePipelinedRequests,
} from '@petstore/node';
import connect from 'connect';
import express from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { Hono } from 'hono';

/** Where a host mounts the pet store: the path it strips, and the public base links show. */
export interface Mount {
  readonly mountPath: string;
  /** Set when a proxy in front rewrites the path: what clients see instead of `mountPath`. */
  readonly publicPath?: string | undefined;
}

/** A host the project supports, mounted as its README says, next to a route of its own. */
export interface Host {
  readonly name: string;
  /** Serves `store` at `mount`; the caller closes it. */
  serve(store: PetStore, mount: Mount): Promise<ConformanceTarget>;
  /** Over a real socket: the adapter scenarios need one (the core alone has none). */
  listen?(store: PetStore, mount: Mount): Promise<RunningServer>;
  /** Mounted at `inner` inside a sub-app or plugin mounted at `outer`, where the host has such. */
  listenNested?(store: PetStore, outer: string, inner: string): Promise<RunningServer>;
  /**
   * Cases this host answers differently, by name, with the reason; they still run (as
   * expected failures), so the list cannot go stale.
   */
  readonly knownDifferences?: Readonly<Record<string, string>>;
}

const hostRoute = { ok: true } as const;

/**
 * A node:http server for `listener`, with the parser-refusal answers each README adds, and
 * pipelined requests one at a time (@petstore/node's README), as the service serves them.
 */
function onNodeServer(listener: Parameters<typeof createServer>[1]): Promise<RunningServer> {
  const server = createServer(listener);
  installClientErrorHandler(server);
  serializePipelinedRequests(server);
  return serveNodeServer(server);
}

/** Express: `app.use(petStoreRouter(store, { mountPath: '/v1' }))`. */
function expressApp(store: PetStore, { mountPath, publicPath }: Mount, json = false) {
  const app = express();
  if (json) app.use(express.json());
  app.get('/healthz', (_req, res) => {
    res.json(hostRoute);
  });
  return app.use(
    petStoreRouter(store, { mountPath, ...(publicPath === undefined ? {} : { publicPath }) }),
  );
}

async function listenFastify(app: FastifyInstance): Promise<RunningServer> {
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  installClientErrorHandler(app.server);
  return { ...httpTarget(origin, () => app.close()), origin, server: app.server };
}

/** Fastify: `await app.register(petStorePlugin, { store, prefix: '/v1' })`. */
async function fastifyApp(store: PetStore, { mountPath, publicPath }: Mount) {
  const app = Fastify({ ...petStoreServerOptions });
  app.get('/healthz', async () => hostRoute);
  await app.register(fastifyPlugin, {
    store,
    prefix: mountPath,
    ...(publicPath === undefined ? {} : { publicPath }),
  });
  return app;
}

async function listenHapi(server: Hapi.Server): Promise<RunningServer> {
  await server.start();
  installClientErrorHandler(server.listener);
  const target = httpTarget(server.info.uri, () => server.stop({ timeout: 0 }));
  return { ...target, origin: server.info.uri, server: server.listener };
}

/** Hapi: `server.register({ plugin, options: { store } }, { routes: { prefix: '/v1' } })`. */
async function hapiServer(store: PetStore, { mountPath, publicPath }: Mount) {
  const server = Hapi.server({ host: '127.0.0.1', port: 0 });
  server.route({ method: 'GET', path: '/healthz', handler: () => hostRoute });
  const options = publicPath === undefined ? { store } : { store, publicPath };
  await server.register({ plugin: hapiPlugin, options }, { routes: { prefix: mountPath } });
  return server;
}

/** A fetch handler as a Hono app mounts it: `app.all('/v1/*', (c) => handler(c.req.raw))`. */
function honoApp(store: PetStore, { mountPath, publicPath }: Mount): Hono {
  const handler = petStoreFetch(store, {
    mountPath,
    ...(publicPath === undefined ? {} : { publicPath }),
  });
  const app = new Hono();
  app.get('/healthz', (c) => c.json(hostRoute));
  app.all(mountPath, (c) => handler(c.req.raw));
  app.all(`${mountPath}/*`, (c) => handler(c.req.raw));
  return app;
}

function onFetchServer(fetch: (request: Request) => Response | Promise<Response>) {
  // As the fetch README serves it: `hostname` is also the URL's host for a request without Host
  // (HTTP/1.0 may send none).
  const server = createAdaptorServer({ fetch, hostname: '127.0.0.1' }) as Server;
  installClientErrorHandler(server);
  return serveNodeServer(server);
}

const listenOnly = (listen: NonNullable<Host['listen']>): Pick<Host, 'serve' | 'listen'> => ({
  serve: listen,
  listen,
});

/**
 * Every host in the matrix, by name. A host's mount follows its README, beside a route of the
 * host's own (`GET /healthz`), so the host's router is really in the path.
 */
export const HOSTS = {
  core: {
    name: 'core',
    serve: async (store, { mountPath }) => coreTarget(store, mountPath),
  },
  express: {
    name: 'express',
    ...listenOnly((store, mount) => onNodeServer(expressApp(store, mount))),
    listenNested: (store, outer, inner) =>
      onNodeServer(express().use(outer, petStoreRouter(store, { mountPath: inner }))),
  },
  'express-json': {
    name: 'express, express.json() upstream',
    // Conformance only: body-parser reads an oversized body to its end before the core sees
    // the error, so the adapter scenarios' "reads little of it" is the parser's call, not ours.
    serve: (store, mount) => onNodeServer(expressApp(store, mount, true)),
    // Once body-parser has turned the text into numbers, a rounded literal cannot be seen.
    knownDifferences: {
      'createPet: a fraction that rounds to an integer is 400, never rounded':
        'express.json() parsed 1.0000000000000001 to 1 before the core saw the text',
      'messages: POST /pets {"name":"Rex","categoryId":1.0000000000000001} → categoryId must be an integer from 1 to 9007199254740991':
        'express.json() parsed 1.0000000000000001 to 1 before the core saw the text',
    },
  },
  fastify: {
    name: 'fastify',
    ...listenOnly(async (store, mount) => listenFastify(await fastifyApp(store, mount))),
    listenNested: async (store, outer, inner) => {
      const app = Fastify({ ...petStoreServerOptions });
      await app.register(
        async (tenant) => {
          await tenant.register(fastifyPlugin, { store, prefix: inner });
        },
        { prefix: outer },
      );
      return listenFastify(app);
    },
  },
  hapi: {
    name: 'hapi',
    ...listenOnly(async (store, mount) => listenHapi(await hapiServer(store, mount))),
    listenNested: async (store, outer, inner) => {
      const server = Hapi.server({ host: '127.0.0.1', port: 0 });
      const tenant: Hapi.Plugin<void> = {
        name: 'tenant',
        register: (tenantServer) =>
          tenantServer.register(
            { plugin: hapiPlugin, options: { store } },
            { routes: { prefix: inner } },
          ),
      };
      await server.register(tenant, { routes: { prefix: outer } });
      return listenHapi(server);
    },
  },
  node: {
    name: 'node:http listener, the whole server',
    ...listenOnly((store, { mountPath, publicPath }) =>
      onNodeServer(
        petStoreListener(store, {
          mountPath,
          ...(publicPath === undefined ? {} : { publicPath }),
        }),
      ),
    ),
  },
  connect: {
    name: 'node:http listener as Connect middleware',
    ...listenOnly((store, { mountPath, publicPath }) => {
      const app = connect();
      app.use('/healthz', (_req, res) => res.end('ok'));
      app.use(
        petStoreListener(store, {
          mountPath,
          ...(publicPath === undefined ? {} : { publicPath }),
        }),
      );
      return onNodeServer(app);
    }),
    listenNested: (store, outer, inner) =>
      onNodeServer(connect().use(outer, petStoreListener(store, { mountPath: inner }))),
  },
  fetch: {
    name: 'fetch handler on @hono/node-server',
    ...listenOnly((store, { mountPath, publicPath }) =>
      onFetchServer(
        petStoreFetch(store, {
          mountPath,
          ...(publicPath === undefined ? {} : { publicPath }),
        }),
      ),
    ),
  },
  hono: {
    name: 'fetch handler in a Hono app',
    ...listenOnly((store, mount) => onFetchServer(honoApp(store, mount).fetch)),
  },
} satisfies Record<string, Host>;

export type HostName = keyof typeof HOSTS;
