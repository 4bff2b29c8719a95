import { createMount } from '@petstore/core';
import { petStoreFetch } from '@petstore/fetch';
import { type ApiReferenceOptions, createApiReference } from './api-reference.js';

/** A fetch-standard handler that answers its own paths only: undefined for any other request. */
export type ApiReferenceFetchHandler = (request: Request) => Promise<Response> | undefined;

/**
 * `apiReferenceFetch({ publicPath: '/v1' })`: the page at `/docs` for Hono, Bun, Deno or
 * `@hono/node-server`, through `@petstore/fetch`; undefined for every path outside it, so it
 * composes with `??`: `(request) => docs(request) ?? api(request)`.
 */
export function apiReferenceFetch(options: ApiReferenceOptions = {}): ApiReferenceFetchHandler {
  const reference = createApiReference(options);
  const mount = createMount({ mountPath: reference.path });
  const answer = petStoreFetch(reference, { mountPath: reference.path });
  return (request) =>
    mount.below(new URL(request.url).pathname) === undefined ? undefined : answer(request);
}

export type { ApiReferenceOptions } from './api-reference.js';
