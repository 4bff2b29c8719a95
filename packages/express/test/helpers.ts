import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPetStore, type PetStore, type PetStoreOptions } from '@petstore/core';
import { sendHttp, type WireRequest, type WireResponse } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import express, { type Express } from 'express';
import { afterEach } from 'vitest';

export const API_KEY = 'express-adapter-test-key';
export const AUTH = { authorization: `Bearer ${API_KEY}` } as const;
export const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' } as const;

export const memoryStore = (options: Partial<PetStoreOptions> = {}): PetStore =>
  createPetStore({ storage: createMemoryStorage(), apiKeys: [API_KEY], ...options });

export interface Running {
  readonly origin: string;
  readonly server: Server;
  send(request: WireRequest): Promise<WireResponse>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 with a port the system picks. */
export async function listen(app: Express): Promise<Running> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    server,
    send: (request) => sendHttp(origin, request),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

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
