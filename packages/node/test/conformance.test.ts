import { createServer } from 'node:http';
import { runConformance, serveNodeServer } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import { petStoreListener } from '../src/index.js';

runConformance({
  name: 'node listener over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => serveNodeServer(createServer(petStoreListener(store, { basePath: '/v1' }))),
});
