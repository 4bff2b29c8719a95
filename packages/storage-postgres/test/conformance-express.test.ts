import { createServer } from 'node:http';
import { runConformance, serveNodeServer } from '@petstore/core/testing';
import { petStoreRouter } from '@petstore/express';
import express from 'express';
import { afterAll } from 'vitest';
import { hostPool } from './support/database.js';
import { freshStorages } from './support/fresh-storage.js';

const admin = hostPool();
const storages = freshStorages(admin, 'conf_express');
afterAll(async () => {
  await storages.dispose();
  await admin.end();
});

runConformance({
  name: 'express over postgres',
  storage: storages.next,
  serve: (store) => serveNodeServer(createServer(express().use('/v1', petStoreRouter(store)))),
});
