import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { type RunningServer, serveNodeServer } from '@petstore/conformance';
import type { PetStore } from '@petstore/core';
import { Hono } from 'hono';
import { type PetStoreFetchOptions, petStoreFetch } from '../src/index.js';

/** The handler as the whole app: `@hono/node-server` serving `petStoreFetch` alone. */
export const serveFetch = (
  store: PetStore,
  options?: PetStoreFetchOptions,
): Promise<RunningServer> =>
  serveNodeServer(createAdaptorServer({ fetch: petStoreFetch(store, options) }) as Server);

/** A Hono app with a route of its own, the API mounted with `app.all(`${prefix}/*`)`. */
export function honoApp(store: PetStore, prefix = '/v1', publicPath?: string): Hono {
  const handler = petStoreFetch(store, {
    mountPath: prefix,
    ...(publicPath === undefined ? {} : { publicPath }),
  });
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.all(prefix, (c) => handler(c.req.raw));
  app.all(`${prefix}/*`, (c) => handler(c.req.raw));
  return app;
}

export const serveHono = (app: Hono): Promise<RunningServer> =>
  serveNodeServer(createAdaptorServer({ fetch: app.fetch }) as Server);
