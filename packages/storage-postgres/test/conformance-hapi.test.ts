import Hapi from '@hapi/hapi';
import { httpTarget, runConformance } from '@petstore/core/testing';
import { petStorePlugin } from '@petstore/hapi';
import { afterAll } from 'vitest';
import { hostPool } from './support/database.js';
import { freshStorages } from './support/fresh-storage.js';

const admin = hostPool();
const storages = freshStorages(admin, 'conf_hapi');
afterAll(async () => {
  await storages.dispose();
  await admin.end();
});

runConformance({
  name: 'hapi over postgres',
  storage: storages.next,
  serve: async (store) => {
    const server = Hapi.server({ host: '127.0.0.1', port: 0 });
    await server.register(
      { plugin: petStorePlugin, options: { store } },
      { routes: { prefix: '/v1' } },
    );
    await server.start();
    return httpTarget(server.info.uri, () => server.stop({ timeout: 0 }));
  },
});
