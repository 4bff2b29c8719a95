import { createAuthenticator } from './auth/auth.js';
import type { ApiError } from './http/errors.js';
import type { PetStoreRequest, PetStoreResponse } from './http/messages.js';
import { requestIdOf } from './http/request-id.js';
import { buildOpenApiDocument } from './openapi/openapi.js';
import { RequestContext, type StoreParts } from './operations/context.js';
import { operationsFor } from './operations/operations.js';
import { compileRouter, type Router } from './operations/router.js';
import type { ShedCause } from './options/hooks.js';
import { type PetStoreOptions, resolveOptions } from './options/options.js';
import type { PetStore } from './pet-store.js';
import { answer, answerFailure, answerShed, overloaded } from './pipeline/answer.js';
import { dispatch } from './pipeline/dispatch.js';
import { createInFlightLimit, type HeldPlace, type InFlightLimit } from './pipeline/in-flight.js';
import { createLoadMonitor, type LoadMonitor } from './pipeline/load-monitor.js';

/** What a store's `handle` closes over beside its parts: the router and load shedding. */
interface Pipeline {
  readonly findRoute: Router;
  /** Undefined: no shedding on the event loop's delay or the heap (off, or workerd). */
  readonly monitor: LoadMonitor | undefined;
  /** Undefined: no limit on the requests in flight (`maxInFlight` 0, or load shedding off). */
  readonly inFlight: InFlightLimit | undefined;
  /** The answer to a shed request. */
  readonly shedError: ApiError;
  /** A request reads the clock: for `onResponse`'s duration or for the monitor. */
  readonly clocked: boolean;
}

/** Everything a store needs per request, built once. */
function buildStore(input: PetStoreOptions): { parts: StoreParts; pipeline: Pipeline } {
  const options = resolveOptions(input);
  const operations = operationsFor(options);
  const parts = {
    options,
    openApiDocument: buildOpenApiDocument(operations, options),
    authenticate: createAuthenticator(input),
  };
  const monitor = createLoadMonitor(options.loadShedding);
  const shedError = overloaded(options.loadShedding?.retryAfterSeconds ?? 0);
  const pipeline = {
    findRoute: compileRouter(operations),
    monitor,
    inFlight: createInFlightLimit(options.loadShedding?.maxInFlight, shedError),
    shedError,
    clocked: monitor !== undefined || options.hooks.onResponse !== undefined,
  };
  return { parts, pipeline };
}

/** Why a request arriving at `now` is shed, or undefined. */
const shedCause = (
  monitor: LoadMonitor | undefined,
  inFlight: InFlightLimit | undefined,
  now: number,
): ShedCause | undefined =>
  monitor?.check(now) ?? (inFlight?.full === true ? 'shed_in_flight' : undefined);

/**
 * One request, arrival to answer. Promise chains rather than async functions:
 * a create or a list then waits once, on the storage, and a refusal answers
 * without a trip through the microtask queue.
 */
function handle(
  store: StoreParts,
  { findRoute, monitor, inFlight, shedError, clocked }: Pipeline,
  request: PetStoreRequest,
): Promise<PetStoreResponse> {
  // One clock read serves both, and none when neither a hook nor load shedding wants one.
  const now = clocked ? performance.now() : 0;
  const context = new RequestContext(store, request, requestIdOf(request.headers), now);
  // Overloaded: answered now, the same for every request; nothing else is read or run. A shed
  // request is not in flight: it is not counted.
  const shed = shedCause(monitor, inFlight, now);
  if (shed !== undefined) return Promise.resolve(answerShed(context, shed, shedError));
  return serve(findRoute, context, inFlight?.enter(context));
}

/**
 * The request's work, to its answer. A counted request (`inFlight`) gives its place up exactly
 * once, when its answer is ready or building it threw, on every path: an answer now, a settled
 * promise, a failure (thrown, rejected, a body too large, a client gone).
 */
function serve(
  findRoute: Router,
  context: RequestContext,
  inFlight: HeldPlace | undefined,
): Promise<PetStoreResponse> {
  let waiting = false;
  try {
    let result: ReturnType<typeof dispatch>;
    try {
      result = dispatch(findRoute, context);
    } catch (error) {
      return Promise.resolve(answerFailure(context, error));
    }
    if (result instanceof Promise) {
      const answered = result.then(
        (settled) => {
          try {
            return answer(context, settled);
          } finally {
            inFlight?.leave();
          }
        },
        (error: unknown) => {
          try {
            return answerFailure(context, error);
          } finally {
            inFlight?.leave();
          }
        },
      );
      // Set only once the callbacks are attached: from here on they leave the count.
      waiting = true;
      return answered;
    }
    return Promise.resolve(answer(context, result));
  } finally {
    if (!waiting) inFlight?.leave();
  }
}

export function createPetStore(input: PetStoreOptions): PetStore {
  const { parts, pipeline } = buildStore(input);
  const store: PetStore = {
    openApiDocument: parts.openApiDocument,
    handle(request) {
      try {
        return handle(parts, pipeline, request);
      } catch (error) {
        // A request without headers, say: a promise all the same, as an async function gives.
        return Promise.reject(error);
      }
    },
  };
  pipelines.set(store, pipeline);
  return store;
}

/** Each store's pipeline, for `shedding`. */
const pipelines = new WeakMap<PetStore, Pipeline>();

/**
 * Why load shedding would answer a request arriving at `store` now (a 503 at once), or undefined
 * when it would be served, or when `store` is not one `createPetStore` made. For a host that
 * refuses before a request is even read: a connection accepted while this says shed can be
 * answered the 503 and closed before the HTTP parser runs (cheaper than reading its request).
 */
export function shedding(store: PetStore): ShedCause | undefined {
  const pipeline = pipelines.get(store);
  return pipeline === undefined
    ? undefined
    : shedCause(pipeline.monitor, pipeline.inFlight, performance.now());
}
