import { createAuthenticator, isAuthUnavailable } from './auth.js';
import { ClientAbortedError } from './body.js';
import { type ApiError, apiError, errorResponse, isApiError, JSON_CONTENT_TYPE } from './errors.js';
import type { HandlerResult, RequestContext } from './handlers/context.js';
import type { PetStoreRequest, PetStoreResponse } from './http.js';
import { buildOpenApiDocument } from './openapi.js';
import { type OperationHeader, operationsFor } from './operations.js';
import {
  type PetStoreHooks,
  type PetStoreOptions,
  parseBasePath,
  type ResolvedOptions,
  type ResponseEvent,
  resolveOptions,
} from './options.js';
import type { PetStore } from './pet-store.js';
import { parseRawQuery } from './query.js';
import { requestIdOf } from './request-id.js';
import { compileRouter, type Route } from './router.js';
import { isStorageUnavailable } from './storage.js';

function toResponse(result: HandlerResult, extraHeaders: Record<string, string>): PetStoreResponse {
  if (isApiError(result)) return errorResponse(result, extraHeaders);
  return {
    status: result.status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...result.headers, ...extraHeaders },
    body: JSON.stringify(result.body),
  };
}

/** Storage outages become 503; anything else is a bug the client sees only as 500. */
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

/** Where a hook was called from, so a throwing hook is reported with its request. */
interface HookSite {
  readonly method: string;
  readonly route: string | undefined;
  readonly requestId: string;
}

/** A hook must never break an answer; a throwing hook is reported to onError. */
function callHook<TEvent>(
  hooks: PetStoreHooks,
  hook: ((event: TEvent) => void) | undefined,
  event: TEvent,
  site: HookSite,
) {
  if (hook === undefined) return;
  try {
    hook(event);
  } catch (error) {
    if (hook !== hooks.onError) callHook(hooks, hooks.onError, { error, ...site }, site);
  }
}

/** An operation's own headers, sent in lower case like every header the core sets. */
function headerValues(
  headers: readonly OperationHeader[],
  options: ResolvedOptions,
  basePath: string,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const header of headers) values[header.name.toLowerCase()] = header.value(options, basePath);
  return values;
}

interface Outcome {
  readonly result: HandlerResult;
  readonly route: Route | undefined;
  readonly operationId: string | undefined;
  readonly headers: Record<string, string>;
  readonly error?: unknown;
  /** The client went away while its body was read: no answer, no error. */
  readonly aborted?: true;
}

/** nginx's "client closed request": what logs show for a request nobody was left to answer. */
const CLIENT_CLOSED_REQUEST = 499;
/** Never sent: an aborted request has no answer. */
const GONE = apiError('internal_error', 'The client went away.');

export function createPetStore(input: PetStoreOptions): PetStore {
  const options = resolveOptions(input);
  const { hooks } = options;
  const authenticate = createAuthenticator(input);
  // Adapters pass the same mount point request after request: check each value once.
  let lastBasePath: { readonly raw: string; readonly parsed: string | TypeError } | undefined;
  const requestBasePath = (raw: string | undefined): string | TypeError => {
    if (raw === undefined) return options.basePath;
    if (lastBasePath?.raw !== raw) lastBasePath = { raw, parsed: parseBasePath(raw) };
    return lastBasePath.parsed;
  };
  const operations = operationsFor(options);
  const openApiDocument = buildOpenApiDocument(operations, options);
  const findRoute = compileRouter(operations);

  async function dispatch(request: PetStoreRequest, requestId: string): Promise<Outcome> {
    const match = findRoute(request.method, request.path);
    const none = { route: undefined, operationId: undefined, headers: {} };
    // Authentication comes first: an unauthenticated client learns nothing about routes or input.
    const isPublic = match.kind === 'operation' && match.operation.public === true;
    const principal = isPublic ? undefined : await authenticate(request.headers);
    if (isAuthUnavailable(principal)) {
      return { ...none, result: principal.error, error: principal.cause };
    }
    if (isApiError(principal)) return { ...none, result: principal };

    if (match.kind === 'not_found') {
      return { ...none, result: apiError('not_found', `No route for ${request.path}.`) };
    }
    if (match.kind === 'method_not_allowed') {
      const message = `${request.method} is not allowed here; use ${match.allow}.`;
      const result = apiError('method_not_allowed', message, { headers: { allow: match.allow } });
      return { ...none, route: match.route, result };
    }
    const { route, operation } = match;
    // The request's own mount point goes into Location and Link: checked, and only now.
    const basePath = isPublic ? options.basePath : requestBasePath(request.basePath);
    if (basePath instanceof TypeError) {
      const result = apiError('internal_error', 'Something went wrong on our side.');
      return { ...none, route, operationId: operation.operationId, result, error: basePath };
    }
    const context: RequestContext = {
      request,
      options,
      basePath,
      principal,
      pathParams: match.params,
      query: parseRawQuery(request.query ?? ''),
      openApiDocument,
    };
    const headers =
      operation.headers === undefined ? {} : headerValues(operation.headers, options, basePath);
    if (operation.deprecated === true) {
      const event = {
        operationId: operation.operationId,
        method: request.method,
        route: route.template,
        requestId,
        sunsetAt: options.sunsetAt,
      };
      const site = { method: request.method, route: route.template, requestId };
      callHook(hooks, hooks.onDeprecatedCall, event, site);
    }
    try {
      return {
        route,
        operationId: operation.operationId,
        headers,
        result: await operation.handler(context),
      };
    } catch (error) {
      if (error instanceof ClientAbortedError) {
        return { route, operationId: operation.operationId, headers, result: GONE, aborted: true };
      }
      return { route, operationId: operation.operationId, headers, result: failure(error), error };
    }
  }

  return {
    options,
    openApiDocument,
    async handle(request) {
      const started = performance.now();
      const requestId = requestIdOf(request.headers);
      let outcome: Outcome;
      try {
        outcome = await dispatch(request, requestId);
      } catch (error) {
        // Only a bug gets here.
        outcome = {
          result: failure(error),
          route: undefined,
          operationId: undefined,
          headers: {},
          error,
        };
      }
      const site: HookSite = { method: request.method, route: outcome.route?.template, requestId };
      if ('error' in outcome && !isStorageUnavailable(outcome.error)) {
        callHook(hooks, hooks.onError, { error: outcome.error, ...site }, site);
      }
      const response: PetStoreResponse =
        outcome.aborted === true
          ? {
              status: CLIENT_CLOSED_REQUEST,
              headers: { 'x-request-id': requestId },
              body: undefined,
              aborted: true,
            }
          : toResponse(outcome.result, { ...outcome.headers, 'x-request-id': requestId });
      const event: ResponseEvent = {
        ...site,
        operationId: outcome.operationId,
        status: response.status,
        durationMs: performance.now() - started,
        requestId,
        ...(outcome.aborted === true ? { aborted: true } : {}),
      };
      callHook(hooks, hooks.onResponse, event, site);
      return response;
    },
  };
}
