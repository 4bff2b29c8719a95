import type { ApiReferenceOptions } from './api-reference.js';
import { type ApiReferenceListener, apiReferenceListener } from './node.js';

/**
 * `app.use(apiReferenceRouter({ publicPath: '/v1' }))`: the page at `/docs`, every other request
 * passed on with `next()`. Paths are matched in full (`req.originalUrl`), so it may sit in a
 * nested router too. It writes its answers itself: Express adds no ETag, charset or compression.
 * Needs no Express types: Express 4 and 5 take it like any `(req, res, next)` middleware.
 */
export function apiReferenceRouter(options: ApiReferenceOptions = {}): ApiReferenceListener {
  return apiReferenceListener(options);
}

export type { ApiReferenceOptions } from './api-reference.js';
export type { ApiReferenceListener } from './node.js';
