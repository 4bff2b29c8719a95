import { createServer } from 'node:http';
import { type RunningServer, serveNodeServer } from '@petstore/conformance';
import { createPetStore, type PetStore, type PetStoreOptions } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import express, { type Express } from 'express';
import { afterEach } from 'vitest';

export const API_KEY = 'express-adapter-test-key';
export const AUTH = { authorization: `Bearer ${API_KEY}` } as const;
export const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' } as const;

export const memoryStore = (options: Partial<PetStoreOptions> = {}): PetStore =>
  createPetStore({ storage: createMemoryStorage(), apiKeys: [API_KEY], ...options });

export type Running = RunningServer;

/** Listens on 127.0.0.1 with a port the system picks. */
export const listen = (app: Express): Promise<Running> => serveNodeServer(createServer(app));

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

/** A fresh app set up by `configure`, listening; closed after the current test. */
export async function serveApp(configure: (app: Express) => void): Promise<Running> {
  const app = express();
  configure(app);
  const server = await listen(app);
  running.push(server);
  return server;
}
