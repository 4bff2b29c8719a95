import { createServer, type Server as HttpServer } from 'node:http';
import Hapi, { type Server } from '@hapi/hapi';
import { createPetStore, DEFAULT_API_PATH, type PetStorage, type PetStore } from '@petstore/core';
import { petStoreRouter } from '@petstore/express';
import { petStorePlugin as petStoreFastifyPlugin } from '@petstore/fastify';
import { petStorePlugin } from '@petstore/hapi';
import { petStoreListener } from '@petstore/node';
import { createMemoryStorage } from '@petstore/storage-memory';
import express, { type Express } from 'express';
import Fastify, { type FastifyInstance } from 'fastify';
import { API_KEY, LIST_SEED_SIZE, seedPet } from '../fixtures.js';

/** Memory storage holding the same pets as the bare routes' arrays. */
export async function seededMemoryStorage(size = LIST_SEED_SIZE): Promise<PetStorage> {
  const storage = createMemoryStorage();
  for (let id = 1; id <= size; id++) await storage.createPet(seedPet(id));
  return storage;
}

export const benchStore = (storage: PetStorage): PetStore =>
  createPetStore({ storage, apiKeys: [API_KEY] });

/**
 * For loops that call `handle()` back to back, with no I/O between calls: they hold the event
 * loop on purpose, which the core's load shedding (on by default) would read as an overloaded
 * server, as its README says of such scripts.
 */
export const loopStore = (storage: PetStorage): PetStore =>
  createPetStore({ storage, apiKeys: [API_KEY], loadShedding: false });

/** Our library on Express, mounted as its README says. */
export function oursExpressApp(store: PetStore): Express {
  const app = express();
  app.set('etag', false);
  app.set('x-powered-by', false);
  app.use(petStoreRouter(store, { mountPath: DEFAULT_API_PATH }));
  return app;
}

/** Our library on Hapi, registered as its README says. */
export async function oursHapiServer(store: PetStore): Promise<Server> {
  const server = Hapi.server({ host: '127.0.0.1', port: 0 });
  await server.register(
    { plugin: petStorePlugin, options: { store } },
    { routes: { prefix: DEFAULT_API_PATH } },
  );
  return server;
}

/** Our library on plain node:http, as its README says. */
export const oursNodeServer = (store: PetStore): HttpServer =>
  createServer(petStoreListener(store, { mountPath: DEFAULT_API_PATH }));

/** Our library on Fastify, registered as its README says. */
export async function oursFastifyApp(store: PetStore): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(petStoreFastifyPlugin, { store, prefix: DEFAULT_API_PATH });
  return app;
}
