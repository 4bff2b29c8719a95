import {
  type ApiError,
  apiError,
  errorResponse,
  isApiError,
  JSON_CONTENT_TYPE,
} from '../http/errors.js';
import type { PetStoreResponse } from '../http/messages.js';
import { ClientAbortedError } from '../input/body.js';
import type { HandlerResult, RequestContext } from '../operations/context.js';
import type { ResponseEvent, ShedCause } from '../options/hooks.js';
import { callHook, type HookSite } from '../options/hooks.js';
import { isStorageUnavailable } from '../storage/storage.js';

/** nginx's "client closed request": what logs show for a request nobody was left to answer. */
export const CLIENT_CLOSED_REQUEST = 499;

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

/** Why a 503: load shedding, the storage's reason, or `verify` (a failing key check). */
const unavailableCause = ({ shed, failure }: RequestContext): string =>
  shed ?? (isStorageUnavailable(failure) ? (failure.reason ?? 'unavailable') : 'verify');

/**
 * The answer to send. Built by assignment, not spreads: this runs for every
 * request, and the header objects are small and new each time.
 */
function toResponse(context: RequestContext, result: HandlerResult): PetStoreResponse {
  const { operationHeaders, requestId } = context;
  if (isApiError(result)) {
    const extra: Record<string, string> =
      operationHeaders === undefined ? {} : Object.assign({}, operationHeaders);
    extra['x-request-id'] = requestId;
    return errorResponse(result, extra);
  }
  // A reply without a body (a 204) has no content type either.
  const headers: Record<string, string> =
    result.body === undefined ? {} : { 'content-type': JSON_CONTENT_TYPE };
  // A key's data is no cache's to keep; only the public document may be kept.
  if (context.principal !== undefined) headers['cache-control'] = 'no-store';
  headers['x-content-type-options'] = 'nosniff';
  if (result.headers !== undefined) Object.assign(headers, result.headers);
  if (operationHeaders !== undefined) Object.assign(headers, operationHeaders);
  headers['x-request-id'] = requestId;
  const body = result.body === undefined ? undefined : JSON.stringify(result.body);
  return { status: result.status, headers, body };
}

/** The response to a result, with the hooks told (onError first, when something failed). */
export function answer(context: RequestContext, result: HandlerResult): PetStoreResponse {
  const { hooks } = context.options;
  const { onResponse, onError } = hooks;
  const reportError = context.failure !== undefined && !isStorageUnavailable(context.failure);
  // Without hooks to tell, there is nothing to report and no event to build.
  if (onResponse === undefined && !(reportError && onError !== undefined)) {
    return context.aborted ? gone(context) : toResponse(context, result);
  }
  const site: HookSite = {
    method: context.request.method,
    route: context.route,
    requestId: context.requestId,
  };
  if (reportError) callHook(hooks, onError, { error: context.failure, ...site }, site);
  const response = context.aborted ? gone(context) : toResponse(context, result);
  if (onResponse !== undefined) {
    const event: ResponseEvent = {
      ...site,
      operationId: context.operationId,
      status: response.status,
      durationMs: performance.now() - context.started,
      ...(context.aborted ? { aborted: true } : {}),
      ...(response.status === 503 ? { cause: unavailableCause(context) } : {}),
    };
    callHook(hooks, onResponse, event, site);
  }
  return response;
}

/** A step threw or rejected: the client went away (no answer), the storage is down, or a bug. */
export function answerFailure(context: RequestContext, error: unknown): PetStoreResponse {
  if (error instanceof ClientAbortedError) context.aborted = true;
  else context.failure = error;
  return answer(context, failure(error));
}

/** What a shed request is answered: the same for every request, whatever it asked. */
export const overloaded = (retryAfterSeconds: number): ApiError =>
  apiError('service_unavailable', 'The pet store is overloaded; retry later.', {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });

/** Load shedding: the request answered at once, before authentication, its body or storage. */
export function answerShed(
  context: RequestContext,
  cause: ShedCause,
  error: ApiError,
): PetStoreResponse {
  context.shed = cause;
  return answer(context, error);
}

/** No answer for a client that left; the status is for logs only. */
const gone = ({ requestId }: RequestContext): PetStoreResponse => ({
  status: CLIENT_CLOSED_REQUEST,
  headers: { 'x-request-id': requestId },
  body: undefined,
  aborted: true,
});
