import { createServer } from 'node:http';
import { runConformance, serveNodeServer } from '@petstore/core/testing';
import { petStoreRouter } from '@petstore/express';
import express from 'express';
import pg from 'pg';
import { afterAll, describe } from 'vitest';
import { pgbouncerUrl } from './support/database.js';
import { freshStorages } from './support/fresh-storage.js';

// The whole conformance suite through one adapter, over PostgreSQL behind PgBouncer in
// transaction mode. Skipped, and said so once by the global setup, without a pgbouncer binary.
const bouncer = pgbouncerUrl();
const admin = new pg.Pool({ connectionString: bouncer, max: 10 });
admin.on('error', () => undefined);
const storages = freshStorages(admin, 'conf_bouncer');
afterAll(async () => {
  await storages.dispose();
  await admin.end();
});

describe.skipIf(bouncer === '')('through PgBouncer', () => {
  runConformance({
    name: 'express over postgres through PgBouncer',
    storage: storages.next,
    serve: (store) => serveNodeServer(createServer(express().use('/v1', petStoreRouter(store)))),
  });
});
