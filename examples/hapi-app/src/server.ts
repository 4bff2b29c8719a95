import Hapi from '@hapi/hapi';
import type { PetStorage, PetStore } from '@petstore/core';
import { petStorePlugin } from '@petstore/hapi';
import type { Logger } from 'pino';

export interface ServerParts {
  readonly store: PetStore;
  readonly storage: PetStorage;
  readonly host: string;
  readonly port: number;
  /** One JSON line per answered request; omitted in tests that do not care. */
  readonly logger?: Logger;
}

/** The pet API under /v1, and health checks outside it, without auth. */
export async function createServer({
  store,
  storage,
  host,
  port,
  logger,
}: ServerParts): Promise<Hapi.Server> {
  const server = Hapi.server({ host, port });
  server.route({ method: 'GET', path: '/healthz', handler: () => ({ status: 'ok' }) });
  // Ready when the storage answers a one-row page; 503 while it cannot.
  server.route({
    method: 'GET',
    path: '/readyz',
    handler: (_request, h) =>
      storage.listPets({ limit: 1 }).then(
        () => ({ status: 'ready' }),
        () => h.response({ status: 'storage unavailable' }).code(503),
      ),
  });
  await server.register(
    { plugin: petStorePlugin, options: { store } },
    { routes: { prefix: '/v1' } },
  );
  if (logger !== undefined) {
    // The plugin writes its answers itself (`request.response` is not a hapi
    // response there), so status and request id come from the raw response.
    server.events.on('response', (request) => {
      const res = request.raw.res;
      logger.info({
        method: request.method.toUpperCase(),
        url: request.raw.req.url,
        status: res.statusCode,
        requestId: res.getHeader('x-request-id'),
        ms: (request.info.completed || Date.now()) - request.info.received,
      });
    });
  }
  return server;
}
