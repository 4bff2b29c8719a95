/** What the core tells a host as it answers, and how a hook is called. */

export interface ResponseEvent {
  readonly method: string;
  /** Route template (`/pets/{petId}`), undefined when no route matched. */
  readonly route: string | undefined;
  readonly operationId: string | undefined;
  readonly status: number;
  readonly durationMs: number;
  readonly requestId: string;
  /**
   * Present when the client went away while its body was read: nothing was
   * answered (`status` is 499, nginx's "client closed request") and it is
   * not an error of yours or ours, so log it at info level.
   */
  readonly aborted?: true;
  /**
   * Present on a 503: why the answer could not be given, for logs and metrics (never shown to
   * the client): the storage's `reason` (a SQLSTATE such as `57P01`, an errno such as
   * `ECONNREFUSED`, `timeout`), `verify` when your `verify` failed, or a `ShedCause`
   * (`shed_event_loop_delay`, `shed_heap_used`, `shed_in_flight`) when load shedding answered at
   * once.
   */
  readonly cause?: string;
}

/**
 * The `cause` of a request shed by load shedding (the `loadShedding` option): answered 503 at
 * once, before authentication, its body or the storage, because the event loop ran late, the
 * heap was full, or `maxInFlight` requests were already in flight. Every such cause starts with
 * `shed_`.
 */
export type ShedCause = 'shed_event_loop_delay' | 'shed_heap_used' | 'shed_in_flight';

export interface DeprecatedCallEvent {
  readonly operationId: string;
  readonly method: string;
  readonly route: string;
  readonly requestId: string;
  readonly sunsetAt: Date;
}

export interface ErrorEvent {
  /**
   * What was thrown. The client saw only `internal_error`, or
   * `service_unavailable` when it was `verify` that failed or timed out.
   */
  readonly error: unknown;
  readonly method: string;
  readonly route: string | undefined;
  readonly requestId: string;
}

/** An operation about to run: what `aroundOperation` is told. */
export interface OperationEvent {
  readonly operationId: string;
  readonly method: string;
  /** Route template (`/pets/{petId}`). */
  readonly route: string;
  readonly requestId: string;
}

/**
 * The core prints nothing: hosts log, count and trace through these. A throwing hook is
 * reported to `onError` and otherwise ignored.
 */
export interface PetStoreHooks {
  /**
   * Wraps each operation (parameters, handler, storage calls): call `run` once and return what
   * it returns, a value or a promise. For a tracing span around the operation (active while the
   * storage runs, so its own spans nest beneath it), or a timer. A hook that throws before
   * calling `run` is reported to `onError` and the operation runs without it.
   */
  readonly aroundOperation?: (<T>(event: OperationEvent, run: () => T) => T) | undefined;
  readonly onResponse?: ((event: ResponseEvent) => void) | undefined;
  readonly onDeprecatedCall?: ((event: DeprecatedCallEvent) => void) | undefined;
  readonly onError?: ((event: ErrorEvent) => void) | undefined;
}

/** Where a hook was called from, so a throwing hook is reported with its request. */
export interface HookSite {
  readonly method: string;
  readonly route: string | undefined;
  readonly requestId: string;
}

/** A hook must never break an answer; a throwing hook is reported to onError. */
export function callHook<TEvent>(
  hooks: PetStoreHooks,
  hook: ((event: TEvent) => void) | undefined,
  event: TEvent,
  site: HookSite,
): void {
  if (hook === undefined) return;
  try {
    hook(event);
  } catch (error) {
    if (hook !== hooks.onError) callHook(hooks, hooks.onError, { error, ...site }, site);
  }
}
