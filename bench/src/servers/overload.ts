/**
 * The past-capacity measurement's probe (measurements/overload.ts) of a server process's heap and
 * event loop, read by the parent through the process's IPC channel: a service instance loads it
 * with `--import` (servers/service-probe.ts).
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** What the child reports of one run: heap and event loop, sampled every 50 ms meanwhile. */
export interface ServerProbe {
  readonly heapUsedStartBytes: number;
  readonly heapUsedEndBytes: number;
  readonly heapUsedMaxBytes: number;
  /**
   * heapUsed right after a full collection taken while the load runs (`liveAfterMs` into it):
   * the heap the instance holds (a queue of waiting requests would be in it), without the
   * garbage that makes heapUsed swing by tens of MiB with the allocation rate. Null when the
   * process has no `gc()` (run without --expose-gc) or the run was shorter.
   */
  readonly liveHeapBytes: number | null;
  readonly rssMaxBytes: number;
  readonly samples: number;
  /** p99 of the event loop's delay over the run (10 ms resolution). */
  readonly eventLoopP99Ms: number | null;
}

const SAMPLE_MS = 50;
let sampler: NodeJS.Timeout | undefined;
let delay: IntervalHistogram | undefined;
let probe = { start: 0, max: 0, live: null as number | null, rss: 0, samples: 0 };
let snapshot: NodeJS.Timeout | undefined;

/** A full collection, then heapUsed: what is live (Node's `gc`, under --expose-gc). */
const liveHeap = (): number | null => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return null;
  gc();
  return process.memoryUsage().heapUsed;
};

const sample = (): void => {
  const { heapUsed, rss } = process.memoryUsage();
  probe.max = Math.max(probe.max, heapUsed);
  probe.rss = Math.max(probe.rss, rss);
  probe.samples++;
};

/**
 * `{ type: 'overload-probe', action: 'start', liveAfterMs? }` resets the probe and starts sampling
 * (and takes the live heap that long into the run);
 * `{ ..., action: 'read' }` answers a ServerProbe for the time since, and stops it.
 * Anything else: undefined (another handler's message).
 */
export function overloadProbe(message: unknown): ServerProbe | { started: true } | undefined {
  const { type, action, liveAfterMs } = (message ?? {}) as {
    type?: unknown;
    action?: unknown;
    liveAfterMs?: unknown;
  };
  if (type !== 'overload-probe') return undefined;
  if (action === 'start') {
    const { heapUsed, rss } = process.memoryUsage();
    probe = { start: heapUsed, max: heapUsed, live: null, rss, samples: 1 };
    clearTimeout(snapshot);
    if (typeof liveAfterMs === 'number') {
      snapshot = setTimeout(() => {
        probe.live = liveHeap();
      }, liveAfterMs);
      snapshot.unref();
    }
    clearInterval(sampler);
    sampler = setInterval(sample, SAMPLE_MS);
    sampler.unref();
    delay ??= monitorEventLoopDelay();
    delay.reset();
    delay.enable();
    return { started: true };
  }
  clearInterval(sampler);
  clearTimeout(snapshot);
  sampler = undefined;
  sample();
  delay?.disable();
  const eventLoopP99Ms =
    delay === undefined || delay.count === 0 ? null : delay.percentile(99) / 1e6;
  return {
    heapUsedStartBytes: probe.start,
    heapUsedEndBytes: process.memoryUsage().heapUsed,
    heapUsedMaxBytes: probe.max,
    liveHeapBytes: probe.live,
    rssMaxBytes: probe.rss,
    samples: probe.samples,
    eventLoopP99Ms,
  };
}
