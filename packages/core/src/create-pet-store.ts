import { answer, answerFailure } from './answer.js';
import { createAuthenticator } from './auth.js';
import { RequestContext, type StoreParts } from './context.js';
import { dispatch } from './dispatch.js';
import type { PetStoreRequest, PetStoreResponse } from './http.js';
import { buildOpenApiDocument } from './openapi.js';
import { operationsFor } from './operations.js';
import { type PetStoreOptions, resolveOptions } from './options.js';
import type { PetStore } from './pet-store.js';
import { requestPublicPath } from './public-path.js';
import { requestIdOf } from './request-id.js';
import { compileRouter } from './router.js';

/** Everything a store needs per request, built once. */
function buildStore(input: PetStoreOptions): StoreParts {
  const options = resolveOptions(input);
  const operations = operationsFor(options);
  return {
    options,
    openApiDocument: buildOpenApiDocument(operations, options),
    authenticate: createAuthenticator(input),
    findRoute: compileRouter(operations),
    publicPathOf: requestPublicPath(options.publicPath),
  };
}

/**
 * One request, arrival to answer. Promise chains rather than async functions:
 * a create or a list then waits once, on the storage, and a refusal answers
 * without a trip through the microtask queue.
 */
function handle(store: StoreParts, request: PetStoreRequest): Promise<PetStoreResponse> {
  // Hooks are optional: without one, no clock is read.
  const started = store.options.hooks.onResponse === undefined ? 0 : performance.now();
  const context = new RequestContext(store, request, requestIdOf(request.headers), started);
  let result: ReturnType<typeof dispatch>;
  try {
    result = dispatch(context);
  } catch (error) {
    return Promise.resolve(answerFailure(context, error));
  }
  if (result instanceof Promise) {
    return result.then(
      (settled) => answer(context, settled),
      (error: unknown) => answerFailure(context, error),
    );
  }
  return Promise.resolve(answer(context, result));
}

export function createPetStore(input: PetStoreOptions): PetStore {
  const store = buildStore(input);
  return {
    openApiDocument: store.openApiDocument,
    handle(request) {
      try {
        return handle(store, request);
      } catch (error) {
        // A request without headers, say: a promise all the same, as an async function gives.
        return Promise.reject(error);
      }
    },
  };
}
