import { createServer } from 'node:http';
import { runConformance, serveNodeServer } from '@petstore/core/testing';
import { petStoreListener } from '@petstore/node';
import { afterAll } from 'vitest';
import { hostPool } from './support/database.js';
import { freshStorages } from './support/fresh-storage.js';

const admin = hostPool();
const storages = freshStorages(admin, 'conf_node');
afterAll(async () => {
  await storages.dispose();
  await admin.end();
});

runConformance({
  name: 'node listener over postgres',
  storage: storages.next,
  serve: (store) => serveNodeServer(createServer(petStoreListener(store, { basePath: '/v1' }))),
});
