import type { ApiError } from '../http/errors.js';
import type { InFlightPlace, RequestContext } from '../operations/context.js';

/**
 * Load shedding's concurrency limit (`loadShedding.maxInFlight`): how many requests are inside
 * the store at once, from the moment `handle` starts work on one (after the shedding check) until
 * its answer is ready, whatever the operation and however it ended, except while a request waits
 * on its client's body (`InFlightPlace.waitOutside`). A request that arrives while `max` are in
 * flight is shed; so is one whose body is in when `max` are. Unlike the load monitor it needs no
 * timer and no clock (one integer compare per request), so it applies on every host, workerd
 * included; it catches the backlog that waits outside the event loop (a PostgreSQL pool's queue),
 * which the loop's delay never shows. Bodies are waited for outside the count, so clients that
 * send slowly (on purpose or not) cannot hold every place and have everyone else shed.
 */
export class InFlightLimit {
  /** Requests holding a place now. */
  count = 0;

  constructor(
    /** The most requests in flight at once; always at least 1 (0, off, makes no limit). */
    readonly max: number,
    /** What a request shed on this limit is answered. */
    readonly shedError: ApiError,
  ) {}

  /** No room for one more: shed the request arriving now. */
  get full(): boolean {
    return this.count >= this.max;
  }

  /** A place for the request starting now (the caller checked `full`). */
  enter(context: RequestContext): HeldPlace {
    this.count++;
    const place = new HeldPlace(this, context);
    context.inFlight = place;
    return place;
  }
}

/** One request's place: given up at most once per wait, and for good by `leave`. */
export class HeldPlace implements InFlightPlace {
  #held = true;

  constructor(
    private readonly limit: InFlightLimit,
    private readonly context: RequestContext,
  ) {}

  waitOutside<T>(waiting: Promise<T>): Promise<T | ApiError> {
    this.leave();
    return waiting.then((value) => {
      const { limit } = this;
      if (limit.full) {
        this.context.shed = 'shed_in_flight';
        return limit.shedError;
      }
      limit.count++;
      this.#held = true;
      return value;
    });
  }

  /** The answer is ready (or building it threw): the place is free, if it was held. */
  leave(): void {
    if (!this.#held) return;
    this.#held = false;
    this.limit.count--;
  }
}

/** The store's limit, or undefined when `maxInFlight` is 0 (off) or load shedding is off. */
export function createInFlightLimit(
  maxInFlight: number | undefined,
  shedError: ApiError,
): InFlightLimit | undefined {
  return maxInFlight === undefined || maxInFlight === 0
    ? undefined
    : new InFlightLimit(maxInFlight, shedError);
}
