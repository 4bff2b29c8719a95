import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { percentileSorted } from './stats.js';

export interface LoadSpec {
  /** Always http://127.0.0.1:<port>/...: the bench never loads anything else. */
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly connections: number;
  /** Length of the run; with `maxRequests`, the upper bound on it. */
  readonly seconds: number;
  /** Stop after this many requests (smoke runs: autocannon's own runs last at least a second). */
  readonly maxRequests?: number | undefined;
  /** Each request carries an `Idempotency-Key` of its own (a keyed create, as the client makes). */
  readonly idempotencyKeys?: boolean;
}

/** A fresh `Idempotency-Key` on every request autocannon sends. */
const keyedRequests: autocannon.Request[] = [
  {
    setupRequest: (request) => ({
      ...request,
      headers: { ...request.headers, 'idempotency-key': randomUUID() },
    }),
  },
];

export interface LoadResult {
  /** 2xx answers per second over the run. */
  readonly rps: number;
  readonly requests: number;
  /** Exact, from every 2xx response time (autocannon's own histogram rounds to whole ms). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Non-2xx answers, socket errors and timeouts: any of them voids the run. */
  readonly failures: number;
}

/** Most responses one run may record; the run is bounded in time long before this. */
const MAX_SAMPLES = 5_000_000;

export function assertLoopback(url: string): void {
  const { hostname } = new URL(url);
  if (hostname !== '127.0.0.1' && hostname !== '[::1]') {
    throw new Error(`refusing to load ${hostname}: the bench only targets 127.0.0.1`);
  }
}

/** One bounded autocannon run. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  assertLoopback(spec.url);
  let times = new Float64Array(1 << 16);
  let count = 0;
  let instance: autocannon.Instance | undefined;
  const started = performance.now();
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: spec.url,
        method: spec.method,
        headers: spec.headers,
        ...(spec.body === undefined ? {} : { body: spec.body }),
        ...(spec.idempotencyKeys === true ? { requests: keyedRequests } : {}),
        connections: spec.connections,
        // autocannon ignores `duration` when `amount` is set: the timer below bounds such runs.
        ...(spec.maxRequests === undefined
          ? { duration: spec.seconds }
          : { amount: spec.maxRequests }),
        timeout: 10,
        // autocannon only notices the end of a run on its sampling tick: a short tick ends runs on time.
        sampleInt: 100,
      },
      (error: unknown, result) => (error ? reject(error) : resolve(result)),
    );
  });
  instance?.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode < 200 || statusCode > 299 || count >= MAX_SAMPLES) return;
    if (count === times.length) {
      const grown = new Float64Array(times.length * 2);
      grown.set(times);
      times = grown;
    }
    times[count++] = responseTime;
  });
  const bound =
    spec.maxRequests === undefined
      ? undefined
      : setTimeout(() => instance?.stop(), spec.seconds * 1000);
  const result = await done.finally(() => clearTimeout(bound));
  const elapsedSeconds = (performance.now() - started) / 1000;
  const sorted = times.subarray(0, count).sort();
  return {
    rps: result['2xx'] / elapsedSeconds,
    requests: result['2xx'],
    p50Ms: percentileSorted(sorted, 50),
    p99Ms: percentileSorted(sorted, 99),
    failures: result.non2xx + result.errors + result.timeouts,
  };
}
