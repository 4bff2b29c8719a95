import { httpTarget, runConformance } from '@petstore/core/testing';
import { petStorePlugin } from '@petstore/fastify';
import Fastify from 'fastify';
import { afterAll } from 'vitest';
import { hostPool } from './support/database.js';
import { freshStorages } from './support/fresh-storage.js';

const admin = hostPool();
const storages = freshStorages(admin, 'conf_fastify');
afterAll(async () => {
  await storages.dispose();
  await admin.end();
});

runConformance({
  name: 'fastify over postgres',
  storage: storages.next,
  serve: async (store) => {
    const app = Fastify();
    await app.register(petStorePlugin, { store, prefix: '/v1' });
    return httpTarget(await app.listen({ host: '127.0.0.1', port: 0 }), () => app.close());
  },
});
