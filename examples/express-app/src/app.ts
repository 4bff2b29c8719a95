import type { PetStore } from '@petstore/core';
import type { DocsRoutes, HostAnswer, HostRoutes } from '@petstore/example-support';
import { petStoreRouter } from '@petstore/express';
import express, { type Express, type Response } from 'express';

export interface AppParts {
  readonly store: PetStore;
  readonly host: HostRoutes;
  /** True once shutdown began: answers then close their connection. */
  readonly stopping: () => boolean;
  /** GET /docs (the API reference) and its scripts; absent when DOCS=off. */
  readonly docs?: DocsRoutes | undefined;
}

const send = (res: Response, { status, headers, body }: HostAnswer): void => {
  res.status(status).set(headers).send(body);
};

/** The pet API under /v1; health checks and a JSON 404 outside it, without auth. */
export function createApp({ store, host, stopping, docs }: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  // Health answers must not be cached or revalidated; the API writes its own headers anyway.
  app.disable('etag');
  app.use((_req, res, next) => {
    if (stopping()) res.setHeader('connection', 'close');
    next();
  });
  app.get('/healthz', (req, res) => send(res, host.live(req.headers['x-request-id'])));
  app.get('/readyz', async (req, res) => send(res, await host.ready(req.headers['x-request-id'])));
  // GET only, and no body parser anywhere: the docs answers never read a request body.
  if (docs !== undefined) {
    app.get(['/docs', '/docs/{*asset}'], (req, res, next) => {
      const answer = docs.answer(req.path, req.headers['x-request-id']);
      if (answer === undefined) next();
      else send(res, answer);
    });
  }
  app.use('/v1', petStoreRouter(store));
  app.use((req, res) =>
    send(res, host.notFound(req.method, req.path, req.headers['x-request-id'])),
  );
  return app;
}
