import { runConformance } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import { serveHapi } from './helpers.js';

runConformance({
  name: 'hapi over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => serveHapi(store),
});
