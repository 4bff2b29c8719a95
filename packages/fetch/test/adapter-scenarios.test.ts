import { runAdapterScenarios } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import { honoApp, serveFetch, serveHono } from './servers.js';

// Mounting and streaming, as every adapter must: the shared scenarios at each prefix.
runAdapterScenarios({
  name: 'fetch handler on @hono/node-server',
  storage: () => createMemoryStorage(),
  mount: (store, prefix) => serveFetch(store, { basePath: prefix }),
  mountBehindProxy: (store, prefix, publicPath) =>
    serveFetch(store, { basePath: prefix, publicBasePath: publicPath }),
});

runAdapterScenarios({
  name: 'fetch handler in a Hono app',
  storage: () => createMemoryStorage(),
  mount: (store, prefix) => serveHono(honoApp(store, prefix)),
  mountBehindProxy: (store, prefix, publicPath) => serveHono(honoApp(store, prefix, publicPath)),
});
