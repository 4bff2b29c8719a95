import { createServer } from 'node:http';
import { runAdapterScenarios, serveNodeServer } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import { petStoreListener } from '../src/index.js';
import { chain, type Middleware } from './helpers.js';

const hostRoute: Middleware = (req, res, next) => {
  if (req.url !== '/healthz') return next();
  res.end('ok');
};

// Beside a host route, as Connect or Polka would run it: the shared scenarios at each prefix.
runAdapterScenarios({
  name: 'node listener, as middleware',
  storage: () => createMemoryStorage(),
  mount: (store, prefix) =>
    serveNodeServer(createServer(chain(hostRoute, petStoreListener(store, { basePath: prefix })))),
  mountBehindProxy: (store, prefix, publicPath) =>
    serveNodeServer(
      createServer(chain(hostRoute, petStoreListener(store, { basePath: prefix, publicPath }))),
    ),
  mountNested: (store, outer, inner) =>
    serveNodeServer(createServer(chain([outer, petStoreListener(store, { basePath: inner })]))),
});

runAdapterScenarios({
  name: 'node listener, as the whole server',
  storage: () => createMemoryStorage(),
  mount: (store, prefix) =>
    serveNodeServer(createServer(petStoreListener(store, { basePath: prefix }))),
  mountBehindProxy: (store, prefix, publicPath) =>
    serveNodeServer(createServer(petStoreListener(store, { basePath: prefix, publicPath }))),
});
