import { type PetStoreListener, petStoreListener } from '@petstore/node';
import { type ApiReferenceOptions, createApiReference } from './api-reference.js';

/**
 * `http.createServer(apiReferenceListener())` serves the page at `/docs` and a JSON 404
 * elsewhere; as Connect / Polka middleware (a third `next` argument) it passes every other path
 * on. Mounted by `@petstore/node` like the pet store.
 */
export function apiReferenceListener(options: ApiReferenceOptions = {}): PetStoreListener {
  const reference = createApiReference(options);
  return petStoreListener(reference, { mountPath: reference.path });
}

export type { ApiReferenceOptions } from './api-reference.js';
