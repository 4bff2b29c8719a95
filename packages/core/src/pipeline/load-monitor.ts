import type { ShedCause } from '../options/hooks.js';
import type { LoadLimits } from '../options/options.js';

/**
 * Whether the host is overloaded, for load shedding: how late the event loop runs and how much
 * heap is in use. Portable (Node, Bun, Deno): a timer and `performance.now()`, no `node:` module,
 * and no permanent interval. A request arms one timer of `RESOLUTION_MS` when none is pending;
 * how late it fires is the loop's delay. While it is pending, a request that finds it overdue by
 * more than the limit is shed at once: the loop is busy with a backlog and has not reached its
 * timers. A late timer arms the next one, so shedding ends with the first timer on time; an idle
 * store holds no timer (nothing keeps a process alive, on purpose not even an unref'd timer).
 */

/** The delay of the timer a request arms: the loop is measured at most this often. */
export const RESOLUTION_MS = 10;

type HeapUsed = () => number;

/** `process.memoryUsage().heapUsed` where the host has it (Node, Bun, Deno), else undefined. */
function heapUsedReader(): HeapUsed | undefined {
  const host = (globalThis as { process?: { memoryUsage?: unknown } }).process;
  const memoryUsage = host?.memoryUsage;
  if (typeof memoryUsage !== 'function') return undefined;
  return () => {
    try {
      const { heapUsed } = memoryUsage.call(host) as { heapUsed?: unknown };
      return typeof heapUsed === 'number' ? heapUsed : 0;
    } catch {
      return 0;
    }
  };
}

/**
 * workerd (Cloudflare Workers) cancels a request's timers when its answer is sent: a timer would
 * look pending, and ever more overdue, forever. The platform bounds each request's CPU itself.
 */
const timersEndWithTheirRequest = (): boolean =>
  (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent ===
  'Cloudflare-Workers';

export class LoadMonitor {
  /** The verdict for requests arriving now: undefined serves them. */
  private cause: ShedCause | undefined = undefined;
  private pending = false;
  /** When the pending timer is due (`performance.now()` time). */
  private due = 0;
  /**
   * `check`'s one comparison: until this time the verdict stands. No timer pending: -Infinity
   * (arm one); pending: its due time plus the delay limit (then it is overdue); overdue, or no
   * delay limit: Infinity (wait for it to fire).
   */
  private horizon = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly maxDelayMs: number,
    private readonly maxHeapUsedBytes: number,
    private readonly heapUsed: HeapUsed | undefined,
  ) {}

  /**
   * Called once per request, first, with `performance.now()` (the request's own arrival time,
   * read once for this and the hooks): why to shed it, or undefined to serve it.
   */
  check(now: number): ShedCause | undefined {
    if (now > this.horizon) this.look(now);
    return this.cause;
  }

  /** True while a timer is pending (tests: none once the store is idle). */
  get armed(): boolean {
    return this.pending;
  }

  private look(now: number): void {
    if (this.pending) {
      // Overdue and not fired: the loop is still busy with what came before.
      this.cause = 'shed_event_loop_delay';
      this.horizon = Number.POSITIVE_INFINITY;
      return;
    }
    // The last timer fired on time (a late one arms another): only the heap can say shed.
    this.cause = this.heapFull() ? 'shed_heap_used' : undefined;
    this.arm(now);
  }

  private arm(now: number): void {
    this.pending = true;
    this.due = now + RESOLUTION_MS;
    this.horizon = this.maxDelayMs > 0 ? this.due + this.maxDelayMs : Number.POSITIVE_INFINITY;
    setTimeout(this.fire, RESOLUTION_MS);
  }

  private readonly fire = (): void => {
    const now = performance.now();
    this.pending = false;
    this.horizon = Number.NEGATIVE_INFINITY;
    const late = this.maxDelayMs > 0 && now - this.due > this.maxDelayMs;
    this.cause = late ? 'shed_event_loop_delay' : this.heapFull() ? 'shed_heap_used' : undefined;
    // Measure again until the loop is on time: shedding never rests on an old verdict.
    if (late) this.arm(now);
  };

  private heapFull(): boolean {
    return (
      this.maxHeapUsedBytes > 0 &&
      this.heapUsed !== undefined &&
      this.heapUsed() > this.maxHeapUsedBytes
    );
  }
}

/**
 * The store's monitor, or undefined when nothing is to be watched here. The limit on requests in
 * flight (`maxInFlight`) is not the monitor's (`in-flight.ts`): it needs no timer, so it holds
 * on workerd too.
 */
export function createLoadMonitor(limits: LoadLimits | undefined): LoadMonitor | undefined {
  if (limits === undefined || timersEndWithTheirRequest()) return undefined;
  const heapUsed = limits.maxHeapUsedBytes > 0 ? heapUsedReader() : undefined;
  if (limits.maxEventLoopDelayMs === 0 && heapUsed === undefined) return undefined;
  return new LoadMonitor(limits.maxEventLoopDelayMs, limits.maxHeapUsedBytes, heapUsed);
}
