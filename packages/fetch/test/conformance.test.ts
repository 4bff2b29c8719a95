import { runConformance } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import { honoApp, serveFetch, serveHono } from './servers.js';

runConformance({
  name: 'fetch handler on @hono/node-server over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => serveFetch(store, { basePath: '/v1' }),
});

runConformance({
  name: 'fetch handler in a Hono app over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => serveHono(honoApp(store)),
});
