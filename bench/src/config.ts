import type { RoundPlan } from './interleave.js';
import type { Framework } from './results.js';

/** Hosts with a bare route and our adapter side by side; node:http is the floor every Node host stands on. */
export const FRAMEWORKS = [
  'express',
  'hapi',
  'node',
  'fastify',
  'raw',
] as const satisfies readonly Framework[];

/** How long and how big each measurement runs; `--smoke` shrinks everything to seconds. */
export interface BenchConfig {
  readonly mode: 'full' | 'smoke';
  /** Section 1: every server runs once per round, rounds interleaved (interleave.ts). */
  readonly http: RoundPlan;
  readonly core: {
    readonly rounds: number;
    readonly secondsPerRound: number;
    readonly maxCalls: number;
  };
  readonly pages: {
    readonly sizes: readonly number[];
    readonly rounds: number;
    readonly memoryBatch: number;
    readonly postgresBatch: number;
    readonly sqliteBatch: number;
  };
  /** Section 4: ours, the hand-written pg peer and its copy, per path and workload. */
  readonly postgres: RoundPlan;
  /** Section 7: ours against the bare node:sqlite route and its copy. */
  readonly sqlite: RoundPlan;
  /**
   * Section 4's write ceiling: keyed creates with PostgreSQL under a CPU quota of `cpus` (a
   * cgroup), each side `instances` servers with pools of `poolMax`, `connections` in all.
   */
  readonly writeCeiling: RoundPlan & {
    readonly instances: number;
    readonly poolMax: number;
    readonly cpus: number;
    readonly periodMicros: number;
  };
  readonly memoryPets: number;
}

export const FULL: BenchConfig = {
  mode: 'full',
  // A 3 s warm-up left the first side of a round 30-40% low; the bench checks the first round
  // against the later ones (the steady-state row of RESULTS.md). Five rounds at least: every
  // ratio is the median of its rounds.
  http: { connections: 20, warmupSeconds: 8, secondsPerRun: 3, rounds: 5 },
  core: { rounds: 3, secondsPerRound: 2, maxCalls: 10_000_000 },
  pages: {
    sizes: [1_000, 100_000, 1_000_000],
    rounds: 5,
    memoryBatch: 2_000,
    postgresBatch: 200,
    sqliteBatch: 1_000,
  },
  postgres: { connections: 16, warmupSeconds: 4, secondsPerRun: 3, rounds: 5 },
  sqlite: { connections: 16, warmupSeconds: 4, secondsPerRun: 3, rounds: 5 },
  // A quarter of a core: both sides' Node servers (on the server core) and the load generator
  // (on the other) have several times the headroom PostgreSQL has, so it is what saturates.
  // A short period spreads the quota evenly over a run rather than in 25 ms bursts. Seven rounds:
  // under the quota a side's rounds swing ±20% on unchanged code, and every side at once at times
  // (three runs of this section alone, 2026-11-29).
  writeCeiling: {
    connections: 16,
    warmupSeconds: 4,
    secondsPerRun: 3,
    rounds: 7,
    instances: 2,
    poolMax: 8,
    cpus: 0.25,
    periodMicros: 20_000,
  },
  memoryPets: 1_000_000,
};

export const SMOKE: BenchConfig = {
  mode: 'smoke',
  // Smoke runs end by request count; the seconds only bound a run on a machine too busy to
  // finish it, so a busy machine makes the run slower, never empty (it checks that the bench
  // runs and reports, not how fast).
  http: { connections: 4, warmupSeconds: 2, secondsPerRun: 30, rounds: 2, maxRequestsPerRun: 100 },
  core: { rounds: 2, secondsPerRound: 0.1, maxCalls: 100_000 },
  pages: {
    sizes: [1_000, 2_000, 5_000],
    rounds: 2,
    memoryBatch: 50,
    postgresBatch: 10,
    sqliteBatch: 20,
  },
  // Warm-ups end by request count too: a 0.2 s bound left a fresh server's first warm-up with no
  // answer at all on a busy machine (load average 10), which stops the bench.
  postgres: {
    connections: 4,
    warmupSeconds: 2,
    secondsPerRun: 30,
    rounds: 2,
    maxRequestsPerRun: 100,
  },
  sqlite: {
    connections: 4,
    warmupSeconds: 2,
    secondsPerRun: 30,
    rounds: 2,
    maxRequestsPerRun: 100,
  },
  writeCeiling: {
    connections: 4,
    warmupSeconds: 2,
    secondsPerRun: 30,
    rounds: 2,
    maxRequestsPerRun: 60,
    instances: 2,
    poolMax: 2,
    cpus: 0.25,
    periodMicros: 20_000,
  },
  memoryPets: 20_000,
};

/** Seconds each measurement should take, for the ETA (servers starting, seeding, and so on included). */
export function plannedSeconds(config: BenchConfig, frameworks: number = FRAMEWORKS.length) {
  const { http, core, postgres: pg, sqlite, writeCeiling: ceiling } = config;
  const full = config.mode === 'full';
  // Each framework's two sides (raw shares ours with node) and the control, two operations.
  const servers = 2 * frameworks + 1;
  const httpRuns = full ? 2 * servers * (http.rounds * http.secondsPerRun + http.warmupSeconds) : 5;
  return {
    postgresStart: full ? 4 : 2,
    adapterOverhead: httpRuns + (full ? 6 : 3),
    coreAlone: 4 * core.rounds * core.secondsPerRound + 0.5,
    pageCost: full ? 45 : 1,
    // Two paths (direct, PgBouncer) x three workloads x three servers (ours, peer, its copy).
    postgres: full ? 18 * (pg.rounds * pg.secondsPerRun + pg.warmupSeconds) + 10 : 6,
    // Three workloads x three servers, and the files' seeding.
    sqlite: full ? 9 * (sqlite.rounds * sqlite.secondsPerRun + sqlite.warmupSeconds) + 5 : 3,
    memory: full ? 8 : 1,
    // Three sides (ours, the peer, its copy), their servers started and seeded.
    writeCeiling: full
      ? 3 * (ceiling.rounds * ceiling.secondsPerRun + ceiling.warmupSeconds) + 10
      : 4,
  };
}
