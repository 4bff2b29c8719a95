import Hapi from '@hapi/hapi';
import { sendHttp, type WireRequest, type WireResponse } from '@petstore/conformance';
import { createPetStore, type PetStore, type PetStoreOptions } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { petStorePlugin } from '../src/index.js';

export const API_KEY = 'hapi-adapter-test-key';
export const AUTH = { authorization: `Bearer ${API_KEY}` } as const;
export const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' } as const;

export const memoryStore = (options: Partial<PetStoreOptions> = {}): PetStore =>
  createPetStore({ storage: createMemoryStorage(), apiKeys: [API_KEY], ...options });

export interface Running {
  readonly origin: string;
  readonly server: Hapi.Server;
  send(request: WireRequest): Promise<WireResponse>;
  close(): Promise<void>;
}

export interface ServeOptions {
  readonly prefix?: string;
  readonly server?: Hapi.ServerOptions;
  /** The host's own routes, extensions and auth, set up before the plugin is registered. */
  readonly host?: (server: Hapi.Server) => void | Promise<void>;
}

/** A real hapi server on 127.0.0.1 (port picked by the system) with the plugin at `prefix`. */
export async function serveHapi(store: PetStore, options: ServeOptions = {}): Promise<Running> {
  const server = Hapi.server({ ...options.server, host: '127.0.0.1', port: 0 });
  await options.host?.(server);
  await server.register(
    { plugin: petStorePlugin, options: { store } },
    { routes: { prefix: options.prefix ?? '/v1' } },
  );
  await server.start();
  const origin = server.info.uri;
  return {
    origin,
    server,
    send: (request) => sendHttp(origin, request),
    close: () => server.stop({ timeout: 0 }),
  };
}
