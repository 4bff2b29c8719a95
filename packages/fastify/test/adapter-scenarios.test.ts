import { runAdapterScenarios } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import Fastify from 'fastify';
import { petStoreFrameworkErrors, petStorePlugin } from '../src/index.js';
import { hostWithPetStore, listen } from './helpers.js';

// Mounting and streaming, as every adapter must, beside the host's own routes
// and JSON parser: the shared scenarios at each prefix.
runAdapterScenarios({
  name: 'fastify',
  storage: () => createMemoryStorage(),
  mount: async (store, prefix) => listen(await hostWithPetStore(store, prefix)),
  mountBehindProxy: async (store, prefix, publicPath) =>
    listen(await hostWithPetStore(store, prefix, { basePath: publicPath })),
  mountNested: async (store, outer, inner) => {
    const app = Fastify({ frameworkErrors: petStoreFrameworkErrors });
    await app.register(
      async (tenant) => {
        await tenant.register(petStorePlugin, { store, prefix: inner });
      },
      { prefix: outer },
    );
    return listen(app);
  },
});
