import { createAuthenticator } from './auth/auth.js';
import type { PetStoreRequest, PetStoreResponse } from './http/messages.js';
import { requestIdOf } from './http/request-id.js';
import { buildOpenApiDocument } from './openapi/openapi.js';
import { RequestContext, type StoreParts } from './operations/context.js';
import { operationsFor } from './operations/operations.js';
import { compileRouter, type Router } from './operations/router.js';
import { type PetStoreOptions, resolveOptions } from './options/options.js';
import type { PetStore } from './pet-store.js';
import { answer, answerFailure } from './pipeline/answer.js';
import { dispatch } from './pipeline/dispatch.js';

/** Everything a store needs per request, built once. */
function buildStore(input: PetStoreOptions): { parts: StoreParts; findRoute: Router } {
  const options = resolveOptions(input);
  const operations = operationsFor(options);
  const parts = {
    options,
    openApiDocument: buildOpenApiDocument(operations, options),
    authenticate: createAuthenticator(input),
  };
  return { parts, findRoute: compileRouter(operations) };
}

/**
 * One request, arrival to answer. Promise chains rather than async functions:
 * a create or a list then waits once, on the storage, and a refusal answers
 * without a trip through the microtask queue.
 */
function handle(
  store: StoreParts,
  findRoute: Router,
  request: PetStoreRequest,
): Promise<PetStoreResponse> {
  // Hooks are optional: without one, no clock is read.
  const started = store.options.hooks.onResponse === undefined ? 0 : performance.now();
  const context = new RequestContext(store, request, requestIdOf(request.headers), started);
  let result: ReturnType<typeof dispatch>;
  try {
    result = dispatch(findRoute, context);
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
  const { parts, findRoute } = buildStore(input);
  return {
    openApiDocument: parts.openApiDocument,
    handle(request) {
      try {
        return handle(parts, findRoute, request);
      } catch (error) {
        // A request without headers, say: a promise all the same, as an async function gives.
        return Promise.reject(error);
      }
    },
  };
}
