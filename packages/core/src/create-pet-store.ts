import {
  type AuthUnavailable,
  createAuthenticator,
  isAuthUnavailable,
  type Principal,
} from './auth.js';
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
import { compileRouter, type Match, type Route } from './router.js';
import { isStorageUnavailable } from './storage.js';

/**
 * The answer to send. Built by assignment, not spreads: this runs for every
 * request, and the header objects are small and new each time.
 */
function toResponse(
  result: HandlerResult,
  operationHeaders: Readonly<Record<string, string>> | undefined,
  requestId: string,
): PetStoreResponse {
  if (isApiError(result)) {
    const extra: Record<string, string> =
      operationHeaders === undefined ? {} : Object.assign({}, operationHeaders);
    extra['x-request-id'] = requestId;
    return errorResponse(result, extra);
  }
  const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
  if (result.headers !== undefined) Object.assign(headers, result.headers);
  if (operationHeaders !== undefined) Object.assign(headers, operationHeaders);
  headers['x-request-id'] = requestId;
  return { status: result.status, headers, body: JSON.stringify(result.body) };
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
  /** The operation's own headers (deprecation notices), when it has any. */
  readonly headers?: Record<string, string> | undefined;
  readonly error?: unknown;
  /** The client went away while its body was read: no answer, no error. */
  readonly aborted?: true;
}

/** nginx's "client closed request": what logs show for a request nobody was left to answer. */
const CLIENT_CLOSED_REQUEST = 499;
/** Never sent: an aborted request has no answer. */
const GONE = apiError('internal_error', 'The client went away.');
const NO_ROUTE = { route: undefined, operationId: undefined } as const;
/** Only a bug gets here. */
const bug = (error: unknown): Outcome => ({ ...NO_ROUTE, result: failure(error), error });

/** Routed and let in: the handler answered, or is under way. */
interface Pending {
  readonly route: Route;
  readonly operationId: string;
  readonly headers: Record<string, string> | undefined;
  readonly pending: HandlerResult | Promise<HandlerResult>;
}

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

  /** Routing and auth are done; what is left is the handler's answer, or the early one in `now`. */
  type Step = Outcome | Pending;

  function dispatch(request: PetStoreRequest, requestId: string): Step | Promise<Step> {
    const match = findRoute(request.method, request.path);
    // Authentication comes first: an unauthenticated client learns nothing about routes or input.
    const isPublic = match.kind === 'operation' && match.operation.public === true;
    const principal = isPublic ? undefined : authenticate(request.headers);
    // Most checks settle at once (listed keys); only a `verify` is worth a wait.
    return principal instanceof Promise
      ? principal.then((settled) => authenticated(request, requestId, match, settled))
      : authenticated(request, requestId, match, principal);
  }

  function authenticated(
    request: PetStoreRequest,
    requestId: string,
    match: Match,
    principal: Principal | ApiError | AuthUnavailable | undefined,
  ): Step {
    if (isAuthUnavailable(principal)) {
      return { ...NO_ROUTE, result: principal.error, error: principal.cause };
    }
    if (isApiError(principal)) return { ...NO_ROUTE, result: principal };

    if (match.kind === 'not_found') {
      return { ...NO_ROUTE, result: apiError('not_found', `No route for ${request.path}.`) };
    }
    if (match.kind === 'method_not_allowed') {
      const message = `${request.method} is not allowed here; use ${match.allow}.`;
      const result = apiError('method_not_allowed', message, { headers: { allow: match.allow } });
      return { ...NO_ROUTE, route: match.route, result };
    }
    const { route, operation } = match;
    const { operationId } = operation;
    // The request's own mount point goes into Location and Link: checked, and only now.
    const basePath =
      operation.public === true ? options.basePath : requestBasePath(request.basePath);
    if (basePath instanceof TypeError) {
      const result = apiError('internal_error', 'Something went wrong on our side.');
      return { route, operationId, result, error: basePath };
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
      operation.headers === undefined
        ? undefined
        : headerValues(operation.headers, options, basePath);
    if (operation.deprecated === true && hooks.onDeprecatedCall !== undefined) {
      const event = {
        operationId,
        method: request.method,
        route: route.template,
        requestId,
        sunsetAt: options.sunsetAt,
      };
      const site = { method: request.method, route: route.template, requestId };
      callHook(hooks, hooks.onDeprecatedCall, event, site);
    }
    let pending: HandlerResult | Promise<HandlerResult>;
    try {
      pending = operation.handler(context);
    } catch (error) {
      // Answered like a rejection: with its route, and a client that left is no failure.
      pending = Promise.reject(error);
    }
    return { route, operationId, headers, pending };
  }

  /** The handler's result, once it settles; never rejects. */
  function answer(
    request: PetStoreRequest,
    requestId: string,
    started: number,
    step: Step,
  ): Promise<PetStoreResponse> {
    if (!('pending' in step)) return Promise.resolve(finish(request, requestId, started, step));
    const { route, operationId, headers, pending } = step;
    if (!(pending instanceof Promise)) {
      return Promise.resolve(answered(request, requestId, started, step, pending));
    }
    return pending.then(
      (result) => answered(request, requestId, started, step, result),
      (error: unknown) =>
        // A failing body stream is a client that left; anything else, a failure.
        finish(
          request,
          requestId,
          started,
          error instanceof ClientAbortedError
            ? { route, operationId, headers, result: GONE, aborted: true }
            : { route, operationId, headers, result: failure(error), error },
        ),
    );
  }

  /** The handler's answer: without hooks, nothing to report and no outcome to build. */
  function answered(
    request: PetStoreRequest,
    requestId: string,
    started: number,
    step: Pending,
    result: HandlerResult,
  ): PetStoreResponse {
    if (hooks.onResponse === undefined && hooks.onError === undefined) {
      return toResponse(result, step.headers, requestId);
    }
    const { route, operationId, headers } = step;
    return finish(request, requestId, started, { route, operationId, headers, result });
  }

  /** The response for an outcome, with the hooks told. */
  function finish(
    request: PetStoreRequest,
    requestId: string,
    started: number,
    outcome: Outcome,
  ): PetStoreResponse {
    const { onResponse, onError } = hooks;
    const reportError = 'error' in outcome && !isStorageUnavailable(outcome.error);
    const site: HookSite | undefined =
      onResponse === undefined && !(reportError && onError !== undefined)
        ? undefined
        : { method: request.method, route: outcome.route?.template, requestId };
    if (reportError && site !== undefined) {
      callHook(hooks, onError, { error: outcome.error, ...site }, site);
    }
    const response: PetStoreResponse =
      outcome.aborted === true
        ? {
            status: CLIENT_CLOSED_REQUEST,
            headers: { 'x-request-id': requestId },
            body: undefined,
            aborted: true,
          }
        : toResponse(outcome.result, outcome.headers, requestId);
    if (onResponse !== undefined && site !== undefined) {
      const event: ResponseEvent = {
        ...site,
        operationId: outcome.operationId,
        status: response.status,
        durationMs: performance.now() - started,
        requestId,
        ...(outcome.aborted === true ? { aborted: true } : {}),
      };
      callHook(hooks, onResponse, event, site);
    }
    return response;
  }

  return {
    options,
    openApiDocument,
    handle(request) {
      try {
        // Hooks are optional: without them no event (and no clock reading) is made.
        const started = hooks.onResponse === undefined ? 0 : performance.now();
        const requestId = requestIdOf(request.headers);
        // Promise chains rather than async functions: a create or a list then waits
        // once, on the storage, with no extra promise layer per step.
        let step: Step | Promise<Step>;
        try {
          step = dispatch(request, requestId);
        } catch (error) {
          return Promise.resolve(finish(request, requestId, started, bug(error)));
        }
        if (step instanceof Promise) {
          return step.then(
            (settled) => answer(request, requestId, started, settled),
            (error: unknown) => finish(request, requestId, started, bug(error)),
          );
        }
        return answer(request, requestId, started, step);
      } catch (error) {
        // A request without headers, say: a promise all the same, as an async function gives.
        return Promise.reject(error);
      }
    },
  };
}
