import { httpTarget, type RunningServer } from '@petstore/conformance';
import type { PetStore } from '@petstore/core';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { petStorePlugin, petStoreServerOptions } from '../src/index.js';

/** Listens on 127.0.0.1 with a port the system picks. */
export async function listen(app: FastifyInstance): Promise<RunningServer> {
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return { ...httpTarget(origin, () => app.close()), origin, server: app.server };
}

/** A host app with its own routes and JSON parsing, the pet store registered at `prefix`. */
export async function hostWithPetStore(
  store: PetStore,
  prefix: string,
  options: { publicPath?: string; server?: FastifyServerOptions } = {},
): Promise<FastifyInstance> {
  const app = Fastify({ ...petStoreServerOptions, ...options.server });
  app.get('/healthz', async () => ({ ok: true }));
  app.post('/echo', async (request) => request.body);
  const { publicPath } = options;
  await app.register(petStorePlugin, {
    store,
    prefix,
    ...(publicPath === undefined ? {} : { publicPath }),
  });
  return app;
}
