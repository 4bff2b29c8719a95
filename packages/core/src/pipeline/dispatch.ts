import { type AuthUnavailable, isAuthUnavailable, type Principal } from '../auth/auth.js';
import { type ApiError, apiError, isApiError } from '../http/errors.js';
import { checkedPublicPath } from '../http/mount.js';
import { parseRawQuery } from '../input/query.js';
import { readParams } from '../input/read-params.js';
import { invalidInput } from '../input/validation.js';
import type { HandlerResult, RequestContext } from '../operations/context.js';
import type { OperationSpec } from '../operations/operation-spec.js';
import type { Match, Router } from '../operations/router.js';
import { callHook } from '../options/hooks.js';

type Settled = HandlerResult | Promise<HandlerResult>;

/**
 * Routes and authenticates a request, then runs its operation. Authentication
 * comes first: an unauthenticated client learns nothing about routes or input.
 * Synchronous unless something is worth a wait (a `verify`, the storage).
 */
export function dispatch(findRoute: Router, context: RequestContext): Settled {
  const { request, store } = context;
  const match = findRoute(request.method, request.path);
  const isPublic = match.kind === 'operation' && match.operation.public === true;
  const principal = isPublic ? undefined : store.authenticate(request.headers);
  return principal instanceof Promise
    ? principal.then((settled) => admit(context, match, settled))
    : admit(context, match, principal);
}

const bug = (context: RequestContext, error: unknown): ApiError => {
  context.failure = error;
  return apiError('internal_error', 'Something went wrong on our side.');
};

function admit(
  context: RequestContext,
  match: Match,
  principal: Principal | ApiError | AuthUnavailable | undefined,
): Settled {
  if (isAuthUnavailable(principal)) {
    context.failure = principal.cause;
    return principal.error;
  }
  if (isApiError(principal)) return principal;
  context.principal = principal;
  if (match.kind === 'method_not_allowed') {
    context.route = match.route.template;
    const message = `${context.request.method} is not allowed here; use ${match.allow}.`;
    return apiError('method_not_allowed', message, { headers: { allow: match.allow } });
  }
  // Links, and a 404's path as the client sent it, start from the public path: checked only now.
  const { options, request } = context;
  const isPublic = match.kind === 'operation' && match.operation.public === true;
  const publicPath =
    isPublic || request.publicPath === undefined
      ? options.publicPath
      : checkedPublicPath(request.publicPath);
  if (publicPath instanceof TypeError) return bug(context, publicPath);
  context.publicPath = publicPath;
  if (match.kind === 'not_found') {
    return apiError('not_found', `No route for ${publicPath}${context.request.path}.`);
  }
  context.route = match.route.template;
  return run(context, match.operation, match.params);
}

/** The operation, inside the `aroundOperation` hook when there is one. */
function run(context: RequestContext, operation: OperationSpec, captures: readonly string[]) {
  context.operationId = operation.operationId;
  const { hooks } = context.options;
  const go = () => runOperation(context, operation, captures);
  if (hooks.aroundOperation === undefined) return go();
  const site = {
    method: context.request.method,
    route: operation.path,
    requestId: context.requestId,
  };
  let ran = false;
  try {
    return hooks.aroundOperation({ operationId: operation.operationId, ...site }, () => {
      ran = true;
      return go();
    });
  } catch (error) {
    // A broken hook costs its own work, never the answer; an error of the operation itself is
    // the operation's (it has run: the handler reports its own failures as answers).
    if (ran) throw error;
    callHook(hooks, hooks.onError, { error, ...site }, site);
    return go();
  }
}

/** The operation's headers and hook, its parameters, then its handler. */
function runOperation(
  context: RequestContext,
  operation: OperationSpec,
  captures: readonly string[],
): Settled {
  const { options } = context;
  if (operation.headers !== undefined) {
    const values: Record<string, string> = {};
    for (const { name, value } of operation.headers) {
      values[name.toLowerCase()] = value(options, context.publicPath);
    }
    context.operationHeaders = values;
  }
  const { hooks } = options;
  if (operation.deprecated === true && hooks.onDeprecatedCall !== undefined) {
    const site = {
      method: context.request.method,
      route: operation.path,
      requestId: context.requestId,
    };
    const event = { operationId: operation.operationId, ...site, sunsetAt: options.sunsetAt };
    callHook(hooks, hooks.onDeprecatedCall, event, site);
  }
  if (operation.parameters.length > 0) {
    const query = parseRawQuery(context.request.query ?? '');
    const read = readParams(operation.parameters, query, captures);
    if (!read.ok) return invalidInput(read.where, read.details);
    context.params = read.values;
  }
  return operation.handler(context);
}
