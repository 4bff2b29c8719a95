import { createServer } from 'node:http';
import { runAdapterScenarios, serveNodeServer } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import express from 'express';
import { petStoreRouter } from '../src/index.js';

// Mounting and streaming, as every adapter must: the shared scenarios at each prefix.
runAdapterScenarios({
  name: 'express',
  storage: () => createMemoryStorage(),
  mount: (store, prefix) =>
    serveNodeServer(createServer(express().use(prefix, petStoreRouter(store)))),
  mountBehindProxy: (store, prefix, publicPath) =>
    serveNodeServer(
      createServer(express().use(prefix, petStoreRouter(store, { basePath: () => publicPath }))),
    ),
  mountNested: (store, outer, inner) =>
    serveNodeServer(
      createServer(express().use(outer, express.Router().use(inner, petStoreRouter(store)))),
    ),
});
