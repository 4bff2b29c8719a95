/** The shape of bench/results.json; RESULTS.md is rendered from the same values. */
import type { OverloadResults } from './measurements/overload.js';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
  /** How servers and load generator were kept apart. */
  readonly pinning: string;
  /** What ran: the packages as built (what users install), or their TypeScript sources. */
  readonly code: string;
  /** 1-minute load average when the run started and ended: other work on the machine skews every figure. */
  readonly loadAverage: { readonly start: number; readonly end: number };
}

export interface Target {
  readonly name: string;
  /** Human form of the target: `>= 0.90`. */
  readonly target: string;
  /** For a ratio of rounds, their median: a target holds on it. */
  readonly actual: number;
  readonly pass: boolean;
  /** The lowest and highest round, where the figure is a median of rounds. */
  readonly min?: number;
  readonly max?: number;
  /**
   * Its section's control (a server against a copy of itself) read further than ±5% from 1: the
   * machine's noise is as large as the question, so the target neither passes nor fails.
   */
  readonly noisy?: boolean;
}

/** Per-round ratios (run k of one side over run k of the other): their median, min and max. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly rounds: number[];
}

/** One server against a second copy of itself, in the same rounds as the rows it vouches for. */
export interface Control {
  /** Which server was doubled. */
  readonly what: string;
  readonly throughput: Spread;
  readonly p99: Spread;
  /** Past ±5% (the median ratio's distance from 1): the rows' targets read noisy. */
  readonly noisy: { readonly throughput: boolean; readonly p99: boolean };
}

/** The ratios of one comparison, each the median of its rounds with min and max. */
export interface Ratios {
  readonly throughput: Spread;
  readonly p99: Spread;
  /** Server CPU per request, ours / hand-written; null where /proc is missing. */
  readonly serverCpu: Spread | null;
  /** The medians above, for tables. */
  readonly throughputRatio: number;
  readonly p99Ratio: number;
  readonly serverCpuRatio: number | null;
  /** The section's control for this workload, measured in the same rounds. */
  readonly control?: Control | undefined;
}

export interface RunFigures {
  readonly rps: number[];
  readonly p50Ms: number[];
  readonly p99Ms: number[];
  /** CPU µs per request spent by the server process (or the direct pg loop); null where /proc is missing. */
  readonly serverCpuMicros: (number | null)[];
  /** CPU µs per request spent by the whole machine (server, load generator, PostgreSQL, anything else). */
  readonly machineCpuMicros: (number | null)[];
  readonly medianRps: number;
  readonly medianP99Ms: number;
  readonly medianServerCpuMicros: number | null;
  readonly medianMachineCpuMicros: number | null;
}

/**
 * The hosts the adapter overhead is measured on. `node` and `fastify` are against hand-written
 * peers of the whole contract (src/peers); `express` and `hapi` against their two bare routes;
 * `raw` is `@petstore/node` against a raw node:http server that skips the contract, reported
 * as the contract's cost in server CPU per request, with no target.
 */
export type Framework = 'express' | 'hapi' | 'node' | 'fastify' | 'raw';

export interface AdapterOverhead extends Ratios {
  readonly framework: Framework;
  readonly operation: 'list' | 'create';
  /** What the hand-written side is: a peer of the whole contract, bare routes, or the raw server. */
  readonly peer: string;
  readonly connections: number;
  readonly secondsPerRun: number;
  /** The hand-written side. */
  readonly bare: RunFigures;
  readonly ours: RunFigures;
}

export interface CoreAlone {
  readonly operation: 'list' | 'create';
  readonly callsPerSecond: number[];
  readonly medianCallsPerSecond: number;
  readonly microsPerCall: number;
  /** The same work with no core: storage call + JSON (see measurements/core-alone.ts), same run. */
  readonly baselineCallsPerSecond: number[];
  readonly baselineMicrosPerCall: number;
  /** µs per `handle()` call / µs per baseline call. */
  readonly ratio: number;
}

export interface PageCostRow {
  readonly storage: 'memory' | 'postgres' | 'sqlite';
  readonly variant: string;
  /** Median milliseconds per page through `handle()`, by store size. */
  readonly handleMs: Record<string, number>;
  /** Median milliseconds per `listPets()` call on the storage alone, by store size. */
  readonly storageMs: Record<string, number>;
  readonly handleRatio: number;
  readonly storageRatio: number;
}

export type PostgresPath = 'direct' | 'pgbouncer';
export type PostgresWorkload = 'create' | 'keyed create' | 'list';

/** One workload on PostgreSQL through one path: the hand-written node:http + pg peer against ours. */
export interface PostgresRow extends Ratios {
  readonly path: PostgresPath;
  readonly workload: PostgresWorkload;
  /** The peer. */
  readonly bare: RunFigures;
  readonly ours: RunFigures;
  /** PostgreSQL's CPU µs per request (the server's processes), median of rounds; null without /proc. */
  readonly postgresCpuMicros: { readonly bare: number | null; readonly ours: number | null };
  /** The same, ours / the peer's, run k over run k: median, min and max; null without /proc. */
  readonly postgresCpu: Spread | null;
}

/** What one side says to PostgreSQL per request (direct path, through a counting proxy). */
export interface WireRow {
  readonly workload: PostgresWorkload;
  readonly side: 'peer' | 'ours';
  readonly requests: number;
  readonly bytesToDatabase: number;
  readonly bytesFromDatabase: number;
  readonly roundTrips: number;
}

export interface PostgresVsBare {
  readonly connections: number;
  readonly poolMax: number;
  readonly secondsPerRun: number;
  readonly rounds: number;
  readonly rows: PostgresRow[];
  /** Per request on the wire to PostgreSQL, both sides (direct path). */
  readonly wire: WireRow[];
  /** Why the PgBouncer rows are missing, when they are. */
  readonly pgbouncerMissing?: string;
}

/**
 * Keyed creates with PostgreSQL held to a CPU quota (a cgroup): what one primary of that size
 * takes from each side, `instances` servers each, the peer's copy as the control.
 */
export interface WriteCeiling extends Ratios {
  /** The quota, in CPUs, and the period it applies to. */
  readonly cpus: number;
  readonly periodMicros: number;
  readonly instances: number;
  readonly poolMax: number;
  readonly connections: number;
  readonly secondsPerRun: number;
  readonly rounds: number;
  /** The peer. */
  readonly bare: RunFigures;
  readonly ours: RunFigures;
  /** PostgreSQL's CPU µs per request (the group's), median of rounds. */
  readonly postgresCpuMicros: { readonly bare: number | null; readonly ours: number | null };
  readonly postgresCpu: Spread | null;
  /** The share of the quota PostgreSQL used over a run, median of rounds: near 1, saturated. */
  readonly quotaUsed: { readonly bare: number | null; readonly ours: number | null };
  /** Periods in which the quota ran out (cpu.stat), over all the runs. */
  readonly throttledPeriods: number;
  /** Tables of the three schemas whose autovacuum was off for the rounds (see write-ceiling.ts). */
  readonly tablesWithoutAutovacuum: number;
}

export type SqliteWorkload = 'list' | 'create' | 'keyed create';

/** One workload on SQLite: the bare node:http route with node:sqlite against ours. */
export interface SqliteRow extends Ratios {
  readonly workload: SqliteWorkload;
  readonly bare: RunFigures;
  readonly ours: RunFigures;
  /** p99 delay of each server's event loop (ms) per run, from monitorEventLoopDelay in the child. */
  readonly eventLoopP99Ms: {
    readonly bare: (number | null)[];
    readonly ours: (number | null)[];
    readonly medianBare: number | null;
    readonly medianOurs: number | null;
  };
}

export interface SqliteVsBare {
  readonly connections: number;
  readonly secondsPerRun: number;
  readonly rounds: number;
  /** Pets each file starts with. */
  readonly seed: number;
  readonly rows: SqliteRow[];
}

export interface MemoryFootprint {
  readonly pets: number;
  readonly heapBytes: number;
  readonly externalBytes: number;
  readonly bytesPerPet: number;
  readonly nameExample: string;
}

/** One way of serving the API reference's script (section 6). */
export interface DocsAssetCase {
  readonly key: 'old' | 'br' | 'floor' | '304';
  readonly label: string;
  /** The package's own CPU µs per request without HTTP (choosing the answer); null for the others. */
  readonly answerMicros: number | null;
  readonly requestsPerSecond: number[];
  /** Server CPU µs per request, per run; null where /proc is missing. */
  readonly serverCpuMicros: (number | null)[];
  readonly medianRps: number;
  readonly medianServerCpuMicros: number | null;
}

/** Scalar's bundle served by @petstore/api-reference against the old docs-route.ts way, one run. */
export interface DocsAssets {
  readonly connections: number;
  readonly secondsPerRun: number;
  readonly bytes: { readonly plain: number; readonly br: number };
  readonly cases: DocsAssetCase[];
}

export interface Results {
  readonly mode: 'full' | 'smoke';
  readonly machine: Machine;
  readonly durationSeconds: number;
  readonly adapterOverhead: AdapterOverhead[];
  readonly coreAlone: CoreAlone[];
  readonly pageCost: { readonly sizes: number[]; readonly rows: PageCostRow[] };
  readonly postgres: PostgresVsBare | { readonly skipped: string };
  readonly writeCeiling: WriteCeiling | { readonly skipped: string };
  readonly sqlite: SqliteVsBare;
  readonly memory: MemoryFootprint;
  readonly docsAssets: DocsAssets;
  /** Section 8: open-loop load past capacity, with load shedding off and on. */
  readonly overload: OverloadResults;
  readonly targets: Target[];
  readonly notes: string[];
}

/** `--only`: the adapter rows of some frameworks and nothing else (never the committed results). */
export interface AdapterResults {
  readonly mode: 'full' | 'smoke';
  readonly only: Framework[];
  readonly machine: Machine;
  readonly durationSeconds: number;
  readonly adapterOverhead: AdapterOverhead[];
  readonly targets: Target[];
  readonly notes: string[];
}

/** `--only overload`: section 8 alone (never the committed results). */
export interface OverloadOnlyResults {
  readonly mode: 'full' | 'smoke';
  readonly only: ['overload'];
  readonly machine: Machine;
  readonly durationSeconds: number;
  readonly overload: OverloadResults;
  readonly targets: Target[];
  readonly notes: string[];
}

/** `--only sqlite`: section 7 and the SQLite rows of section 3 (never the committed results). */
export interface SqliteResults {
  readonly mode: 'full' | 'smoke';
  readonly only: ['sqlite'];
  readonly machine: Machine;
  readonly durationSeconds: number;
  readonly pageCost: { readonly sizes: number[]; readonly rows: PageCostRow[] };
  readonly sqlite: SqliteVsBare;
  readonly targets: Target[];
  readonly notes: string[];
}

/** `--only postgres`: section 4 and the write ceiling (never the committed results). */
export interface PostgresResults {
  readonly mode: 'full' | 'smoke';
  readonly only: ['postgres'];
  readonly machine: Machine;
  readonly durationSeconds: number;
  readonly postgres: PostgresVsBare;
  readonly writeCeiling: WriteCeiling | { readonly skipped: string };
  readonly targets: Target[];
  readonly notes: string[];
}
