import Hapi from '@hapi/hapi';
import type { PetStore } from '@petstore/core';
import type { DocsRoutes, HostAnswer, HostRoutes } from '@petstore/example-support';
import { petStorePlugin } from '@petstore/hapi';

export interface ServerParts {
  readonly store: PetStore;
  /** /healthz, /readyz and the 404 outside /v1. */
  readonly routes: HostRoutes;
  readonly host: string;
  readonly port: number;
  /** GET /docs (the API reference) and its scripts; absent when DOCS=off. */
  readonly docs?: DocsRoutes | undefined;
}

const reply = (h: Hapi.ResponseToolkit, { status, headers, body }: HostAnswer) => {
  const response = h.response(body).code(status);
  for (const [name, value] of Object.entries(headers)) response.header(name, value);
  return response;
};

/** The pet API under /v1; health checks and a JSON 404 outside it, without auth. */
export async function createServer({
  store,
  routes,
  host,
  port,
  docs,
}: ServerParts): Promise<Hapi.Server> {
  const server = Hapi.server({ host, port });
  // Node gives a header as a string (or a list); hapi types the map loosely.
  const requestId = (request: Hapi.Request): string | undefined => {
    const sent: unknown = request.headers['x-request-id'];
    return typeof sent === 'string' ? sent : undefined;
  };
  server.route({
    method: 'GET',
    path: '/healthz',
    handler: (request, h) => reply(h, routes.live(requestId(request))),
  });
  server.route({
    method: 'GET',
    path: '/readyz',
    handler: async (request, h) => reply(h, await routes.ready(requestId(request))),
  });
  if (docs !== undefined) {
    // GET routes: hapi reads no payload for them.
    const answerDocs: Hapi.Lifecycle.Method = (request, h) => {
      const answer = docs.answer(request.path, requestId(request));
      return reply(h, answer ?? routes.notFound('GET', request.path, requestId(request)));
    };
    server.route({ method: 'GET', path: '/docs', handler: answerDocs });
    server.route({ method: 'GET', path: '/docs/{asset*}', handler: answerDocs });
  }
  // Less specific than the plugin's routes under /v1, so it only gets what nothing else takes.
  server.route({
    method: '*',
    path: '/{any*}',
    handler: (request, h) =>
      reply(h, routes.notFound(request.method.toUpperCase(), request.path, requestId(request))),
  });
  await server.register(
    { plugin: petStorePlugin, options: { store } },
    { routes: { prefix: '/v1' } },
  );
  return server;
}
