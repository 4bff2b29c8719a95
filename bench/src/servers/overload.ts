/**
 * The servers of the past-capacity measurement (measurements/overload.ts):
 * `@petstore/node` over memory or PostgreSQL storage, with the core's load
 * shedding off (as today) or on, and a probe of the child's heap and event loop
 * that the parent reads through the child's IPC channel.
 *
 * Exported for the server child (entry.ts): `overloadServer(spec)` builds the server,
 * `overloadProbe(message)` answers the probe's messages.
 */
import type { Server as HttpServer } from 'node:http';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { createPetStore, type LoadSheddingOptions, type PetStorage } from '@petstore/core';
import { createPostgresStorage } from '@petstore/storage-postgres';
import { API_KEY } from '../fixtures.js';
import { oursNodeServer, seededMemoryStorage } from './ours.js';

/** The core's `loadShedding` option: `false` (the server as it was), or its limits. */
export type LoadSheddingOption = false | LoadSheddingOptions;

export type OverloadServerSpec =
  | { readonly kind: 'node-ours-overload'; readonly loadShedding: LoadSheddingOption }
  | {
      readonly kind: 'node-ours-postgres-overload';
      readonly loadShedding: LoadSheddingOption;
      readonly databaseUrl: string;
      readonly schema: string;
      readonly poolMax: number;
    };

/** `@petstore/node` over the spec's storage, not yet listening, and the storage to close after it. */
export async function overloadServer(
  spec: OverloadServerSpec,
): Promise<{ server: HttpServer; storage: PetStorage }> {
  const storage =
    spec.kind === 'node-ours-overload'
      ? await seededMemoryStorage()
      : createPostgresStorage({
          connectionString: spec.databaseUrl,
          schema: spec.schema,
          poolConfig: { max: spec.poolMax },
        });
  const store = createPetStore({ storage, apiKeys: [API_KEY], loadShedding: spec.loadShedding });
  return { server: oursNodeServer(store), storage };
}

/** What the child reports of one run: heap and event loop, sampled every 50 ms meanwhile. */
export interface ServerProbe {
  readonly heapUsedStartBytes: number;
  readonly heapUsedEndBytes: number;
  readonly heapUsedMaxBytes: number;
  readonly rssMaxBytes: number;
  readonly samples: number;
  /** p99 of the event loop's delay over the run (10 ms resolution). */
  readonly eventLoopP99Ms: number | null;
}

const SAMPLE_MS = 50;
let sampler: NodeJS.Timeout | undefined;
let delay: IntervalHistogram | undefined;
let probe = { start: 0, max: 0, rss: 0, samples: 0 };

const sample = (): void => {
  const { heapUsed, rss } = process.memoryUsage();
  probe.max = Math.max(probe.max, heapUsed);
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
    probe = { start: heapUsed, max: heapUsed, rss, samples: 1 };
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
    rssMaxBytes: probe.rss,
    samples: probe.samples,
    eventLoopP99Ms,
  };
}
