import type { Plugin } from '@hapi/hapi';
import type { PetStore } from '@petstore/core';
import { runAdapterScenarios } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import { petStorePlugin } from '../src/index.js';
import { type ServeOptions, serveHapi } from './helpers.js';

const serve = async (store: PetStore, options: ServeOptions) => {
  const api = await serveHapi(store, options);
  return { ...api, server: api.server.listener };
};

// Mounting and streaming, as every adapter must: the shared scenarios at each prefix.
runAdapterScenarios({
  name: 'hapi',
  storage: () => createMemoryStorage(),
  mount: (store, prefix) => serve(store, { prefix }),
  mountBehindProxy: (store, prefix, basePath) =>
    serve(store, {
      // The helper's own registration goes to an unused prefix; this one is under test.
      prefix: '/unused',
      host: (server) =>
        server.register(
          { plugin: petStorePlugin, options: { store, basePath } },
          { routes: { prefix } },
        ),
    }),
  mountNested: (store, outer, inner) => {
    const tenant: Plugin<void> = {
      name: 'tenant',
      register: (server) =>
        server.register(
          { plugin: petStorePlugin, options: { store } },
          { routes: { prefix: inner } },
        ),
    };
    return serve(store, {
      prefix: '/unused',
      host: (server) => server.register(tenant, { routes: { prefix: outer } }),
    });
  },
});
