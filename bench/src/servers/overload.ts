/**
 * The past-capacity measurement's probe (measurements/overload.ts) of a server process's heap and
 * event loop, read by the parent through the process's IPC channel: a service instance loads it
 * with `--import` (servers/service-probe.ts).
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

/** What the child reports of one run: heap and event loop, sampled every 50 ms meanwhile. */
export interface ServerProbe {
  readonly heapUsedStartBytes: number;
  readonly heapUsedEndBytes: number;
  readonly heapUsedMaxBytes: number;
  /**
   * The most heap in use beyond the young generation (what survived a scavenge): work held, such
   * as a queue of waiting requests. heapUsed also counts the young generation's garbage, which
   * swings by tens of MiB with the allocation rate and the collector's timing.
   */
  readonly oldGenerationMaxBytes: number;
  readonly rssMaxBytes: number;
  readonly samples: number;
  /** p99 of the event loop's delay over the run (10 ms resolution). */
  readonly eventLoopP99Ms: number | null;
}

const SAMPLE_MS = 50;
let sampler: NodeJS.Timeout | undefined;
let delay: IntervalHistogram | undefined;
let probe = { start: 0, max: 0, old: 0, rss: 0, samples: 0 };

/** Heap in use outside the young generation (new space, and its large objects). */
const oldGeneration = (): number =>
  getHeapSpaceStatistics()
    .filter((space) => !space.space_name.startsWith('new_'))
    .reduce((sum, space) => sum + space.space_used_size, 0);

const sample = (): void => {
  const { heapUsed, rss } = process.memoryUsage();
  probe.max = Math.max(probe.max, heapUsed);
  probe.old = Math.max(probe.old, oldGeneration());
  probe.rss = Math.max(probe.rss, rss);
  probe.samples++;
};

/**
 * `{ type: 'overload-probe', action: 'start' }` resets the probe and starts sampling;
 * `{ ..., action: 'read' }` answers a ServerProbe for the time since, and stops it.
 * Anything else: undefined (another handler's message).
 */
export function overloadProbe(message: unknown): ServerProbe | { started: true } | undefined {
  const { type, action } = (message ?? {}) as { type?: unknown; action?: unknown };
  if (type !== 'overload-probe') return undefined;
  if (action === 'start') {
    const { heapUsed, rss } = process.memoryUsage();
    probe = { start: heapUsed, max: heapUsed, old: oldGeneration(), rss, samples: 1 };
    clearInterval(sampler);
    sampler = setInterval(sample, SAMPLE_MS);
    sampler.unref();
    delay ??= monitorEventLoopDelay();
    delay.reset();
    delay.enable();
    return { started: true };
  }
  clearInterval(sampler);
  sampler = undefined;
  sample();
  delay?.disable();
  const eventLoopP99Ms =
    delay === undefined || delay.count === 0 ? null : delay.percentile(99) / 1e6;
  return {
    heapUsedStartBytes: probe.start,
    heapUsedEndBytes: process.memoryUsage().heapUsed,
    heapUsedMaxBytes: probe.max,
    oldGenerationMaxBytes: probe.old,
    rssMaxBytes: probe.rss,
    samples: probe.samples,
    eventLoopP99Ms,
  };
}
