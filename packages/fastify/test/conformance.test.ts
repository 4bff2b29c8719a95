import { runConformance } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import Fastify from 'fastify';
import { petStorePlugin } from '../src/index.js';
import { listen } from './helpers.js';

// A plain Fastify app, no `frameworkErrors`: the suite passes as it is.
runConformance({
  name: 'fastify over memory',
  storage: () => createMemoryStorage(),
  serve: async (store) => {
    const app = Fastify();
    await app.register(petStorePlugin, { store, prefix: '/v1' });
    return listen(app);
  },
});
