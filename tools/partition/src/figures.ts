import type { FaultRecord } from './nemesis.js';
import type { Recording, ServeProbe } from './workload.js';

// The run's figures per fault, from the recording: what the clients saw in its window, how long
// each instance took to serve again after the heal, what /readyz answered meanwhile.

/** An instance serves again once its probes pass for this long in a row. */
const STEADY_S = 2;

export interface FaultFigures {
  readonly what: string;
  readonly at: number;
  readonly heldSeconds: number;
  /**
   * From the heal until the cluster was whole again (a leader, a synchronous standby, every
   * replica streaming) and every instance served; undefined: never.
   */
  readonly recoverySeconds: number | undefined;
  /** Per instance: seconds from the heal until it served creates for good (0: it never stopped). */
  readonly backSeconds: readonly number[];
  /** Creates invoked in the fault's window (from it to the next one), and how they ended. */
  readonly creates: number;
  readonly unknown: number;
  readonly failed: number;
  /** Probes (creates straight to an instance, no retries) that failed in the window. */
  readonly failedProbes: number;
}

/**
 * Seconds from `healedAt` until `instance` served for good, within [at, until): the end of the
 * first passing probe begun after the heal that is followed by STEADY_S of passing probes; 0
 * when it never failed during the fault and its first probe after the heal passed. (A failure
 * at the window's very end belongs to the next fault, begun meanwhile.)
 */
function backAfterHeal(
  probes: readonly ServeProbe[],
  instance: number,
  at: number,
  healedAt: number,
  until: number,
): number {
  const window = probes.filter((p) => p.instance === instance && p.start >= at && p.start < until);
  const failedDuring = window.some((p) => !p.ok && p.start < healedAt);
  const after = window.filter((p) => p.start >= healedAt);
  for (const [n, probe] of after.entries()) {
    if (!probe.ok) continue;
    const steady = after.filter((p) => p.start > probe.start && p.start <= probe.start + STEADY_S);
    if (steady.every((p) => p.ok)) {
      return n === 0 && !failedDuring ? 0 : Math.max(0, probe.end - healedAt);
    }
  }
  return Number.POSITIVE_INFINITY;
}

export function faultFigures(
  recording: Recording,
  faults: readonly FaultRecord[],
  instances: number,
  end: number,
): FaultFigures[] {
  return faults.map((fault, n) => {
    const until = faults[n + 1]?.at ?? end;
    const healedAt = fault.healedAt ?? until;
    const creates = recording.ops.filter(
      (op) => op.kind === 'create' && op.invokedAt >= fault.at && op.invokedAt < until,
    );
    return {
      what: fault.what,
      at: fault.at,
      heldSeconds: healedAt - fault.at,
      recoverySeconds: fault.recoveredAt === undefined ? undefined : fault.recoveredAt - healedAt,
      backSeconds: Array.from({ length: instances }, (_, i) =>
        backAfterHeal(recording.serve, i, fault.at, healedAt, until),
      ),
      creates: creates.length,
      unknown: creates.filter((op) => op.outcome === 'unknown').length,
      failed: creates.filter((op) => op.outcome === 'failed').length,
      failedProbes: recording.serve.filter((p) => !p.ok && p.start >= fault.at && p.start < until)
        .length,
    };
  });
}

export function describeFaults(figures: readonly FaultFigures[]): string {
  const lines = [
    'fault                                                        at(s) held(s)  creates unknown failed  recovery(s)  back after heal (s, per instance; failed probes)',
  ];
  for (const f of figures) {
    lines.push(
      `${f.what.padEnd(60)} ${f.at.toFixed(1).padStart(6)} ${f.heldSeconds.toFixed(1).padStart(7)} ${String(f.creates).padStart(8)} ${String(f.unknown).padStart(7)} ${String(f.failed).padStart(6)}  ${(f.recoverySeconds === undefined ? 'never' : f.recoverySeconds.toFixed(1)).padStart(11)}  ${f.backSeconds.map((s) => s.toFixed(1)).join(', ')}; ${f.failedProbes}`,
    );
  }
  return lines.join('\n');
}

/** The q-quantile of `values` (nearest rank), or 0 for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/** Per-second series for the timeline: throughput, latency, and what went wrong. */
export function timeline(
  recording: Recording,
  end: number,
): { t: number; metric: string; value: number; panel: string }[] {
  const seconds = Math.ceil(end);
  const series: { t: number; metric: string; value: number; panel: string }[] = [];
  const perSecond = (times: readonly number[], metric: string, panel: string) => {
    const buckets = new Array<number>(seconds + 1).fill(0);
    for (const t of times) {
      const bucket = Math.min(seconds, Math.max(0, Math.floor(t)));
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    for (const [t, value] of buckets.entries()) series.push({ t, metric, value, panel });
  };
  const ops = recording.ops;
  const acked = ops.filter((op) => op.kind === 'create' && op.outcome === 'ok');
  perSecond(
    acked.map((op) => op.completedAt ?? 0),
    'creates acknowledged/s',
    'throughput',
  );
  perSecond(
    ops.filter((op) => op.kind === 'page' && op.outcome === 'ok').map((op) => op.completedAt ?? 0),
    'pages read/s',
    'throughput',
  );
  // Latency of the creates acknowledged in each second (retries included: the client's view).
  const latencies = Array.from({ length: seconds + 1 }, () => [] as number[]);
  for (const op of acked) {
    const bucket = Math.min(seconds, Math.floor(op.completedAt ?? 0));
    latencies[bucket]?.push(((op.completedAt ?? 0) - op.invokedAt) * 1000);
  }
  for (const [t, values] of latencies.entries()) {
    if (values.length === 0) continue;
    series.push({ t, metric: 'create p99 (ms)', value: quantile(values, 0.99), panel: 'latency' });
    series.push({ t, metric: 'create p50 (ms)', value: quantile(values, 0.5), panel: 'latency' });
  }
  const ended = (outcome: string) =>
    ops
      .filter((op) => op.kind === 'create' && op.outcome === outcome)
      .map((op) => op.completedAt ?? 0);
  perSecond(ended('unknown'), 'creates unknown/s', 'trouble');
  perSecond(ended('failed'), 'creates failed/s', 'trouble');
  perSecond(recording.retries, 'client retries/s', 'trouble');
  perSecond(
    recording.serve.filter((p) => !p.ok).map((p) => p.end),
    'failed probes/s',
    'trouble',
  );
  return series;
}
