import { type PetStoreRouter, petStoreRouter } from '@petstore/express';
import { type ApiReferenceOptions, createApiReference } from './api-reference.js';

/**
 * `app.use(apiReferenceRouter({ publicPath: '/v1' }))`: the page at `/docs` (below wherever the
 * router is used), every other path passed on with `next()`. Mounted by `@petstore/express`
 * like the pet store, so it answers exactly as every other host does.
 */
export function apiReferenceRouter(options: ApiReferenceOptions = {}): PetStoreRouter {
  const reference = createApiReference(options);
  return petStoreRouter(reference, { mountPath: reference.path });
}

export type { ApiReferenceOptions } from './api-reference.js';
