import type { PetStorage, PetStore } from '@petstore/core';
import { petStoreRouter } from '@petstore/express';
import express, { type Express } from 'express';

export interface AppParts {
  readonly store: PetStore;
  readonly storage: PetStorage;
  /** True once shutdown began: answers then close their connection. */
  readonly stopping: () => boolean;
}

/** The pet API under /v1, and health checks outside it, without auth. */
export function createApp({ store, storage, stopping }: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    if (stopping()) res.setHeader('connection', 'close');
    next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Ready when the storage answers a one-row page; 503 while it cannot.
  app.get('/readyz', (_req, res) => {
    storage.listPets({ limit: 1 }).then(
      () => res.json({ status: 'ready' }),
      () => res.status(503).json({ status: 'storage unavailable' }),
    );
  });
  app.use('/v1', petStoreRouter(store));
  return app;
}
