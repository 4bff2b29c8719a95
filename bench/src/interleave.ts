/**
 * Rounds interleaved across every server of a section: each round runs each server once, in an
 * order that turns each round, so drift over time (thermal, a neighbour waking up) falls on
 * every server alike. One server is usually a second copy of another: the control, whose ratio
 * to its twin is the machine's noise for that section.
 */
import type { BenchChild } from './child.js';
import { withCpu } from './cpu-usage.js';
import { type LoadResult, type LoadSpec, load } from './load.js';
import type { Progress } from './progress.js';
import type { MeasuredRun } from './run-figures.js';

/** How long each run lasts and how many there are. */
export interface RoundPlan {
  readonly connections: number;
  readonly warmupSeconds: number;
  readonly secondsPerRun: number;
  readonly rounds: number;
  /** Smoke runs end by count (bounded by the seconds above as well). */
  readonly maxRequestsPerRun?: number | undefined;
}

export interface RunBounds {
  readonly connections: number;
  readonly seconds: number;
  readonly maxRequests?: number | undefined;
}

/** One server of a section, and the load one run of the workload sends it. */
export interface Contestant {
  readonly name: string;
  readonly child: BenchChild;
  /** The load of one run; `server` is the instance it goes to, for a side of several. */
  readonly spec: (bounds: RunBounds, server: BenchChild) => LoadSpec;
  /** Asked before a run (a fresh count) and after it: the server's event-loop p99 over the run. */
  readonly eventLoopP99?: () => Promise<number | null>;
  /** CPU seconds of the database the server uses, read before and after each run. */
  readonly databaseCpuSeconds?: () => number | undefined;
  /**
   * A side of several servers (instances of one service): every one of them, `child` first.
   * A run spreads its connections over them (`spreadLoad`) and sums their CPU.
   */
  readonly instances?: readonly BenchChild[];
}

/**
 * Round `round` (0-based): the list turned by `round`, so each server goes first once every
 * `n` rounds; reversed in every other pass of `n` rounds, so neighbours swap places too.
 */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const n = items.length;
  if (n === 0) return [];
  const turn = round % n;
  const turned = [...items.slice(turn), ...items.slice(0, turn)];
  return Math.floor(round / n) % 2 === 1 ? turned.reverse() : turned;
}

/**
 * A warm-up of every contestant, then `plan.rounds` rounds of one run each. `check` voids a run
 * that failed (any non-2xx answer stops the bench). Returns each contestant's runs in round
 * order, so run k of one is paired with run k of another.
 */
export async function runInterleaved(
  contestants: readonly Contestant[],
  plan: RoundPlan,
  progress: Progress,
  label: string,
  check: (what: string, result: LoadResult) => LoadResult,
): Promise<Map<string, MeasuredRun[]>> {
  const bounds = (seconds: number): RunBounds => ({
    connections: plan.connections,
    seconds,
    maxRequests: plan.maxRequestsPerRun,
  });
  const runs = new Map<string, MeasuredRun[]>(contestants.map(({ name }) => [name, []]));
  const runOnce = async (
    contestant: Contestant,
    seconds: number,
    what: string,
  ): Promise<MeasuredRun> => {
    await contestant.eventLoopP99?.();
    const databaseBefore = contestant.databaseCpuSeconds?.();
    const pids = (contestant.instances ?? [contestant.child]).map((child) => child.pid);
    const run = await withCpu(pids, () => loadOf(contestant, bounds(seconds)));
    const databaseAfter = contestant.databaseCpuSeconds?.();
    return {
      load: check(what, run.result),
      cpu: run.cpu,
      eventLoopP99Ms: (await contestant.eventLoopP99?.()) ?? null,
      databaseCpuSeconds:
        databaseBefore === undefined || databaseAfter === undefined
          ? undefined
          : databaseAfter - databaseBefore,
    };
  };
  for (const contestant of contestants) {
    progress.log(`${label}: warm-up ${contestant.name} (${plan.warmupSeconds}s)`);
    await runOnce(contestant, plan.warmupSeconds, `${label} warm-up ${contestant.name}`);
    progress.done(plan.warmupSeconds);
  }
  for (let round = 0; round < plan.rounds; round++) {
    for (const contestant of roundOrder(contestants, round)) {
      const what = `${label} ${contestant.name} round ${round + 1}/${plan.rounds}`;
      const run = await runOnce(contestant, plan.secondsPerRun, what);
      runs.get(contestant.name)?.push(run);
      progress.done(plan.secondsPerRun);
      progress.log(`${what}: ${describe(run.load, run.cpu.process)}`);
    }
  }
  return runs;
}

const loadOf = (contestant: Contestant, bounds: RunBounds): Promise<LoadResult> =>
  contestant.instances === undefined
    ? load(contestant.spec(bounds, contestant.child))
    : spreadLoad(contestant.instances, contestant.spec, bounds);

/**
 * One run over several servers at once: the connections (and a request count) split evenly,
 * one autocannon per server, started together. Requests and req/s add up; p50 and p99 are the
 * highest of the servers' (each generator keeps its own histogram).
 */
export async function spreadLoad(
  servers: readonly BenchChild[],
  spec: (bounds: RunBounds, server: BenchChild) => LoadSpec,
  bounds: RunBounds,
): Promise<LoadResult> {
  const share = (total: number) => Math.max(1, Math.ceil(total / servers.length));
  const each: RunBounds = {
    ...bounds,
    connections: share(bounds.connections),
    maxRequests: bounds.maxRequests === undefined ? undefined : share(bounds.maxRequests),
  };
  const results = await Promise.all(servers.map((server) => load(spec(each, server))));
  return {
    rps: results.reduce((sum, result) => sum + result.rps, 0),
    requests: results.reduce((sum, result) => sum + result.requests, 0),
    p50Ms: Math.max(...results.map((result) => result.p50Ms)),
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
    failures: results.reduce((sum, result) => sum + result.failures, 0),
  };
}

/** One line of progress for a run. */
export function describe(result: LoadResult, cpuSeconds: number | undefined): string {
  const cpu =
    cpuSeconds === undefined
      ? ''
      : `, server CPU ${((cpuSeconds * 1e6) / result.requests).toFixed(0)} µs/request`;
  return `${Math.round(result.rps)} req/s, p99 ${result.p99Ms.toFixed(2)} ms${cpu}`;
}

/** A run with any failed request measures something else: stop the bench. */
export function checked(what: string, result: LoadResult): LoadResult {
  if (result.failures > 0 || result.requests === 0) {
    throw new Error(`${what}: ${result.failures} failed requests, ${result.requests} succeeded`);
  }
  return result;
}
