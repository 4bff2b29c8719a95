import type { CpuSpent } from './cpu-usage.js';
import type { LoadResult } from './load.js';
import type { RunFigures } from './results.js';
import { median } from './stats.js';

/** One run: its load figures and the CPU spent on it. */
export interface MeasuredRun {
  readonly load: LoadResult;
  readonly cpu: CpuSpent;
}

const perRequest = (seconds: number | undefined, requests: number): number | null =>
  seconds === undefined || requests === 0 ? null : (seconds * 1e6) / requests;

const medianOf = (values: readonly (number | null)[]): number | null => {
  const known = values.filter((value): value is number => value !== null);
  return known.length === values.length && known.length > 0 ? median(known) : null;
};

export function figures(runs: readonly MeasuredRun[]): RunFigures {
  const serverCpu = runs.map((run) => perRequest(run.cpu.process, run.load.requests));
  const machineCpu = runs.map((run) => perRequest(run.cpu.machine, run.load.requests));
  return {
    rps: runs.map((run) => run.load.rps),
    p50Ms: runs.map((run) => run.load.p50Ms),
    p99Ms: runs.map((run) => run.load.p99Ms),
    serverCpuMicros: serverCpu,
    machineCpuMicros: machineCpu,
    medianRps: median(runs.map((run) => run.load.rps)),
    medianP99Ms: median(runs.map((run) => run.load.p99Ms)),
    medianServerCpuMicros: medianOf(serverCpu),
    medianMachineCpuMicros: medianOf(machineCpu),
  };
}

/** Ours against the bare side of one comparison: the figures and their ratios. */
export function compared(bareRuns: readonly MeasuredRun[], oursRuns: readonly MeasuredRun[]) {
  const bare = figures(bareRuns);
  const ours = figures(oursRuns);
  return {
    bare,
    ours,
    throughputRatio: ours.medianRps / bare.medianRps,
    p99Ratio: ours.medianP99Ms / bare.medianP99Ms,
    serverCpuRatio:
      ours.medianServerCpuMicros === null || bare.medianServerCpuMicros === null
        ? null
        : ours.medianServerCpuMicros / bare.medianServerCpuMicros,
  };
}
