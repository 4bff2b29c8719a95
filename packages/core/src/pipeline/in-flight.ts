/**
 * Load shedding's concurrency limit (`loadShedding.maxInFlight`): how many requests are inside
 * the store at once, from the moment `handle` starts work on one (after the shedding check) until
 * its answer is ready, whatever the operation and however it ended. A request that arrives while
 * `max` are in flight is shed. Unlike the load monitor it needs no timer and no clock (one integer
 * compare per request), so it applies on every host, workerd included; it catches the backlog
 * that waits outside the event loop (a PostgreSQL pool's queue), which the loop's delay never
 * shows.
 */
export class InFlightLimit {
  /** Requests started and not yet answered. */
  count = 0;

  constructor(
    /** The most requests in flight at once; always at least 1 (0, off, makes no limit). */
    readonly max: number,
  ) {}

  /** No room for one more: shed the request arriving now. */
  get full(): boolean {
    return this.count >= this.max;
  }

  /** A counted request's answer is ready (or building it threw). */
  leave(): void {
    this.count--;
  }
}

/** The store's limit, or undefined when `maxInFlight` is 0 (off) or load shedding is off. */
export function createInFlightLimit(maxInFlight: number | undefined): InFlightLimit | undefined {
  return maxInFlight === undefined || maxInFlight === 0
    ? undefined
    : new InFlightLimit(maxInFlight);
}
