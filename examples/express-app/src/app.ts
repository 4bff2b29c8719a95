import type { PetStore } from '@petstore/core';
import { petStoreRouter } from '@petstore/express';
import express, { type Express } from 'express';

export interface AppParts {
  readonly store: PetStore;
  /** Where the API is mounted: the service's (`ServiceParts.mountPath`). */
  readonly mountPath: string;
}

/**
 * The pet API at `mountPath`. Health checks, the JSON 404 and bad request targets are answered
 * before Express (the shared front door in @petstore/service), so Express only ever sees
 * requests for the API.
 */
export function createApp({ store, mountPath }: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(petStoreRouter(store, { mountPath }));
  return app;
}
