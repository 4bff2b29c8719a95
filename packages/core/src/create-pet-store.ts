import { createAuthenticator } from './auth.js';
import { type ApiError, apiError, errorResponse, isApiError, JSON_CONTENT_TYPE } from './errors.js';
import type { HandlerResult, RequestContext } from './handlers/context.js';
import { createPet } from './handlers/create-pet.js';
import { getOpenApi } from './handlers/get-openapi.js';
import { deprecationHeaders, getPet } from './handlers/get-pet.js';
import { listOrders } from './handlers/list-orders.js';
import { listPets } from './handlers/list-pets.js';
import type { PetStoreRequest, PetStoreResponse } from './http.js';
import { buildOpenApiDocument } from './openapi.js';
import { normaliseBasePath, type PetStoreOptions, resolveOptions } from './options.js';
import type { PetStore } from './pet-store.js';
import { matchRoute, type Operation, type Route } from './router.js';
import { isStorageUnavailable } from './storage.js';

function toResponse(
  result: HandlerResult,
  operationHeaders: Record<string, string> | undefined,
): PetStoreResponse {
  if (isApiError(result)) return errorResponse(result, operationHeaders);
  return {
    status: result.status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...result.headers, ...operationHeaders },
    body: JSON.stringify(result.body),
  };
}

/** Storage failures become values here, so handlers only deal with the happy path. */
function failure(error: unknown): ApiError {
  if (isStorageUnavailable(error)) {
    const seconds = String(Math.max(0, Math.ceil(error.retryAfterSeconds ?? 1)));
    return apiError(
      'service_unavailable',
      'The pet store is temporarily unavailable; retry later.',
      {
        headers: { 'retry-after': seconds },
      },
    );
  }
  return apiError('internal_error', 'Something went wrong on our side.');
}

export function createPetStore(input: PetStoreOptions): PetStore {
  const options = resolveOptions(input);
  const authenticate = createAuthenticator(input);
  const openApiDocument = buildOpenApiDocument(options, options.basePath);

  const deprecated = {
    headers: (context: Pick<RequestContext, 'options' | 'basePath'>) =>
      deprecationHeaders(context.options, context.basePath),
  };
  const routes: Route[] = [
    {
      template: '/pets',
      pattern: /^\/pets$/,
      methods: {
        GET: { operationId: 'listPets', handler: listPets },
        POST: { operationId: 'createPet', handler: createPet },
      },
    },
    {
      template: '/pets/{petId}',
      pattern: /^\/pets\/([^/]+)$/,
      methods: {
        GET: { operationId: 'getPet', handler: getPet, ...deprecated },
      },
    },
    {
      template: '/store/orders',
      pattern: /^\/store\/orders$/,
      methods: {
        GET: { operationId: 'listOrders', handler: listOrders },
      },
    },
  ];
  if (options.exposeOpenApi) {
    const openApiOperation: Operation = {
      operationId: 'getOpenApiDocument',
      handler: getOpenApi(openApiDocument),
      public: true,
    };
    routes.push({
      template: '/openapi.json',
      pattern: /^\/openapi\.json$/,
      methods: { GET: openApiOperation },
    });
  }

  async function dispatch(request: PetStoreRequest): Promise<PetStoreResponse> {
    const basePath =
      request.basePath === undefined ? options.basePath : normaliseBasePath(request.basePath);
    const match = matchRoute(routes, request.method, request.path);
    // Authentication comes first: an unauthenticated client learns nothing about routes or input.
    const isPublic = match.kind === 'operation' && match.operation.public === true;
    const principal = isPublic ? undefined : await authenticate(request.headers);
    if (isApiError(principal)) return errorResponse(principal);

    if (match.kind === 'not_found')
      return errorResponse(apiError('not_found', `No route for ${request.path}.`));
    if (match.kind === 'method_not_allowed') {
      return errorResponse(
        apiError(
          'method_not_allowed',
          `${request.method} is not allowed here; use ${match.allow}.`,
          {
            headers: { allow: match.allow },
          },
        ),
      );
    }
    const context: RequestContext = {
      request,
      options,
      basePath,
      principal,
      pathParams: match.params,
      query: new URLSearchParams(request.query ?? ''),
    };
    const operationHeaders = match.operation.headers?.(context);
    let result: HandlerResult;
    try {
      result = await match.operation.handler(context);
    } catch (error) {
      result = failure(error);
    }
    return toResponse(result, operationHeaders);
  }

  return {
    options,
    openApiDocument,
    async handle(request) {
      try {
        return await dispatch(request);
      } catch (error) {
        // Only a bug or a throwing `verify` gets here; the client learns nothing of it.
        return errorResponse(failure(error));
      }
    },
  };
}
