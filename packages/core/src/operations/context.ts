import type { Authenticate, Principal } from '../auth/auth.js';
import type { ApiError } from '../http/errors.js';
import type { PetStoreRequest } from '../http/messages.js';
import type { ShedCause } from '../options/hooks.js';
import type { ResolvedOptions } from '../options/options.js';

/** What one store built once and every request uses (the router is the dispatcher's own). */
export interface StoreParts {
  readonly options: ResolvedOptions;
  readonly openApiDocument: Readonly<Record<string, unknown>>;
  readonly authenticate: Authenticate;
}

/**
 * A request's place among those in flight (load shedding's `maxInFlight`, pipeline/in-flight.ts),
 * taken when the store starts work on it.
 */
export interface InFlightPlace {
  /**
   * While `waiting` (the client's body) runs, the request holds no place: a client that sends
   * slowly keeps nobody else out. Then it takes a place again, or, when none is free by then,
   * resolves to the shed answer instead of `waiting`'s value.
   */
  waitOutside<T>(waiting: Promise<T>): Promise<T | ApiError>;
}

/** Parameter values by name, as the operation's row lists them. */
export type ParamValues = Readonly<Record<string, unknown>>;

const NO_PARAMS: ParamValues = Object.freeze({});

/**
 * One request's state on its way through the store, from arrival to answer:
 * each step (authentication, routing, parameters, the handler, the answer)
 * reads it and adds what it learned. Handlers see it typed by their parameters.
 */
export class RequestContext<TParams = ParamValues> {
  /** The matched route's template (`/pets/{petId}`), once routed (405s included): hooks and logs name it. */
  route: string | undefined = undefined;
  operationId: string | undefined = undefined;
  /** The operation's own headers (deprecation notices), on every answer once authenticated. */
  operationHeaders: Readonly<Record<string, string>> | undefined = undefined;
  principal: Principal | undefined = undefined;
  /** The public base of links (`Location`, `Link`): the request's own, else the option. */
  publicPath = '';
  params: TParams = NO_PARAMS as TParams;
  /** What went wrong behind the answer, for `onError` (never shown to the client). */
  failure: unknown = undefined;
  /** The client went away while its body was read: nobody to answer. */
  aborted = false;
  /** Load shedding answered at once, and why (the 503's `cause` for the hooks). */
  shed: ShedCause | undefined = undefined;
  /** Its place among the requests in flight; undefined when nothing limits them. */
  inFlight: InFlightPlace | undefined = undefined;

  constructor(
    readonly store: StoreParts,
    readonly request: PetStoreRequest,
    readonly requestId: string,
    /** `performance.now()` at arrival; 0 when neither a hook nor load shedding reads the clock. */
    readonly started: number,
  ) {}

  get options(): ResolvedOptions {
    return this.store.options;
  }
}

/** A handler's answer: a reply to send, or an error value (turned into the Error body). */
export interface Reply {
  readonly kind: 'reply';
  readonly status: number;
  /** Serialised with JSON.stringify; undefined for no body (a 204). */
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type HandlerResult = Reply | ApiError;

export const reply = (
  status: number,
  body: unknown,
  headers?: Readonly<Record<string, string>>,
): Reply =>
  headers === undefined
    ? { kind: 'reply', status, body }
    : { kind: 'reply', status, body, headers };
