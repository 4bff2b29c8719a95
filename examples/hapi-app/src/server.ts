import type { Server as NodeServer } from 'node:http';
import Hapi from '@hapi/hapi';
import type { PetStore } from '@petstore/core';
import { petStorePlugin } from '@petstore/hapi';

export interface ServerParts {
  readonly store: PetStore;
  /** Where the API is mounted (hapi's `routes.prefix`): the service's (`ServiceParts.mountPath`). */
  readonly mountPath: string;
  /** The Node server to serve from (the shared one, with the service's limits). */
  readonly listener: NodeServer;
  readonly host: string;
  readonly port: number;
}

/**
 * The pet API at `mountPath`. Health checks, the JSON 404 and bad request targets are answered
 * before hapi (the shared front door in @petstore/service), so hapi only ever sees
 * requests for the API, whose routes leave every status and body to the core.
 */
export async function createServer({
  store,
  mountPath,
  listener,
  host,
  port,
}: ServerParts): Promise<Hapi.Server> {
  const server = Hapi.server({ listener, host, port, autoListen: true });
  await server.register(
    { plugin: petStorePlugin, options: { store } },
    { routes: { prefix: mountPath } },
  );
  return server;
}
