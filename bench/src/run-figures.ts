import type { CpuSpent } from './cpu-usage.js';
import type { LoadResult } from './load.js';
import type { Control, RunFigures, Spread } from './results.js';
import { median } from './stats.js';

/** One run: its load figures and the CPU spent on it. */
export interface MeasuredRun {
  readonly load: LoadResult;
  readonly cpu: CpuSpent;
  /** The server's event-loop p99 over the run, where the contestant reports it. */
  readonly eventLoopP99Ms?: number | null;
  /** The database's CPU seconds over the run, where the contestant has one. */
  readonly databaseCpuSeconds?: number | undefined;
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

/** Median over the runs of the database's CPU µs per request; null where unknown. */
export const databaseCpuMicros = (runs: readonly MeasuredRun[]): number | null =>
  medianOf(runs.map((run) => perRequest(run.databaseCpuSeconds, run.load.requests)));

/** The database's CPU per request, ours / the other side's, run k over run k; null where unknown. */
export function databaseCpuRatio(
  bareRuns: readonly MeasuredRun[],
  oursRuns: readonly MeasuredRun[],
): Spread | null {
  const per = (runs: readonly MeasuredRun[]) =>
    runs.map((run) => perRequest(run.databaseCpuSeconds, run.load.requests));
  const ratios = pairedRatios(per(oursRuns), per(bareRuns));
  return ratios === null || ratios.length === 0 ? null : spread(ratios);
}

/** Median, min and max of per-round ratios. */
export function spread(rounds: readonly number[]): Spread {
  return {
    median: median(rounds),
    min: rounds.length === 0 ? Number.NaN : Math.min(...rounds),
    max: rounds.length === 0 ? Number.NaN : Math.max(...rounds),
    rounds: [...rounds],
  };
}

/** Run k of `top` over run k of `bottom`: rounds are paired, so drift cancels within a pair. */
function pairedRatios(
  top: readonly (number | null)[],
  bottom: readonly (number | null)[],
): number[] | null {
  const ratios: number[] = [];
  for (let index = 0; index < Math.min(top.length, bottom.length); index++) {
    const a = top[index];
    const b = bottom[index];
    if (a === null || a === undefined || b === null || b === undefined) return null;
    ratios.push(a / b);
  }
  return ratios;
}

/**
 * Ours against the hand-written side of one comparison: the figures, and each ratio as the
 * median of the per-round ratios with its min and max.
 */
export function compared(bareRuns: readonly MeasuredRun[], oursRuns: readonly MeasuredRun[]) {
  const bare = figures(bareRuns);
  const ours = figures(oursRuns);
  const throughput = spread(pairedRatios(ours.rps, bare.rps) ?? []);
  const p99 = spread(pairedRatios(ours.p99Ms, bare.p99Ms) ?? []);
  const cpuRounds = pairedRatios(ours.serverCpuMicros, bare.serverCpuMicros);
  const serverCpu = cpuRounds === null ? null : spread(cpuRounds);
  return {
    bare,
    ours,
    throughput,
    p99,
    serverCpu,
    throughputRatio: throughput.median,
    p99Ratio: p99.median,
    serverCpuRatio: serverCpu === null ? null : serverCpu.median,
  };
}

/** A control's spread past this (its median ratio this far from 1) marks its rows noisy. */
export const NOISE_LIMIT = 0.05;

/** A server against a second copy of itself, in the same rounds: the machine's noise. */
export function control(
  what: string,
  originalRuns: readonly MeasuredRun[],
  copyRuns: readonly MeasuredRun[],
): Control {
  const { throughput, p99 } = compared(originalRuns, copyRuns);
  return {
    what,
    throughput,
    p99,
    noisy: {
      throughput: Math.abs(throughput.median - 1) > NOISE_LIMIT,
      p99: Math.abs(p99.median - 1) > NOISE_LIMIT,
    },
  };
}
