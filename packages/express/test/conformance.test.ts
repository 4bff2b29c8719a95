import { createServer } from 'node:http';
import { runConformance, serveNodeServer } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import express from 'express';
import { petStoreRouter } from '../src/index.js';

runConformance({
  name: 'express over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => serveNodeServer(createServer(express().use('/v1', petStoreRouter(store)))),
});

// A host that parses JSON for its own routes must not change a single answer.
runConformance({
  name: 'express over memory, express.json() upstream',
  storage: () => createMemoryStorage(),
  serve: (store) => {
    const app = express();
    app.use(express.json());
    app.use('/v1', petStoreRouter(store));
    return serveNodeServer(createServer(app));
  },
});
