/**
 * Past capacity: what `@petstore/node` does when asked for more than one core
 * can answer. Per case (memory storage on the first page of the list;
 * PostgreSQL on creates): the capacity first, the most 2xx per second
 * autocannon's closed loop gets; then open-loop load (open-loop.ts: a fixed
 * arrival rate, latency from the scheduled time) at 0.5x, 1x, 1.5x and 3x of
 * it, each on a fresh server child after a warm-up at 0.5x, so a queue left by
 * one level cannot slow the next. Twice: the server as it is
 * (`loadShedding: false`) and with the core's load shedding on. Beside the
 * answers, the server's CPU (from /proc) and its heap and event-loop delay (a
 * probe in the child, sampled every 50 ms; see servers/overload.ts).
 */
import type { BenchChild } from '../child.js';
import { processCpuSeconds } from '../cpu-usage.js';
import { AUTHORIZATION, CREATE_BODY, CREATE_PATH, LIST_PATH } from '../fixtures.js';
import { load } from '../load.js';
import { type OpenLoopResult, openLoop } from '../open-loop.js';
import { benchSchema, seedPostgres } from '../postgres-seed.js';
import type { Progress } from '../progress.js';
import type { LoadSheddingOption, OverloadServerSpec, ServerProbe } from '../servers/overload.js';
import { startServer } from '../servers/start.js';
import { expectStatus, probe } from './http-probe.js';

export type OverloadCaseName = 'memory list' | 'postgres create';

export interface OverloadConfig {
  readonly mode: 'full' | 'smoke';
  /** Offered load as multiples of the capacity. */
  readonly multiples: readonly number[];
  readonly capacity: {
    /** autocannon's connections: memory, and PostgreSQL (as many as the pool). */
    readonly connections: { readonly memory: number; readonly postgres: number };
    readonly warmupSeconds: number;
    readonly secondsPerRun: number;
    /** The capacity is the best of these runs. */
    readonly runs: number;
    /** Smoke runs end by count (bounded by the seconds as well). */
    readonly maxRequestsPerRun?: number;
  };
  /**
   * Open-loop warm-up of each fresh server, at the lower of 0.5x and its level, on the
   * connections the measured run then uses.
   */
  readonly warmupSeconds: number;
  readonly secondsPerLevel: number;
  /**
   * A fresh server child per level (and one for the capacity), so a queue left by one level
   * cannot slow the next. Smoke runs share one child per shedding mode: starting a child
   * takes longer than a smoke run's whole load.
   */
  readonly freshServerPerLevel: boolean;
  /** The generator's cap on open connections; arrivals past it are dropped. */
  readonly maxConnections: number;
  /**
   * Connections the generator opens before each run's clock starts (see open-loop.ts). All of
   * them in full runs: a server pause (a garbage collection) otherwise makes the arrivals meanwhile
   * open hundreds of connections at once, past node:http's listen backlog (511), and the kernel
   * drops those connects, retried a second later: 1 s latencies at half the capacity that
   * measure the accept queue, not the server.
   */
  readonly preconnect: number;
  /** From the scheduled time; later is timed out. */
  readonly deadlineMs: number;
  /** The PostgreSQL storage's pool. */
  readonly poolMax: number;
  /**
   * What `loadShedding` gets in each case's runs with shedding on: the core's defaults in
   * memory (event-loop delay); on PostgreSQL a limit on requests in flight too, a few times the
   * pool, as docs/operations.md advises, since there the queue forms in the pool.
   */
  readonly loadShedding: Readonly<Record<OverloadCaseName, Exclude<LoadSheddingOption, false>>>;
}

export const OVERLOAD_FULL: OverloadConfig = {
  mode: 'full',
  multiples: [0.5, 1, 1.5, 3],
  capacity: {
    connections: { memory: 20, postgres: 16 },
    warmupSeconds: 4,
    secondsPerRun: 4,
    runs: 2,
  },
  warmupSeconds: 2,
  secondsPerLevel: 4,
  freshServerPerLevel: true,
  maxConnections: 1024,
  preconnect: 1024,
  deadlineMs: 2000,
  poolMax: 16,
  loadShedding: { 'memory list': {}, 'postgres create': { maxInFlight: 4 * 16 } },
};

/** The same code paths in about two seconds of load per case (plus the children's starts). */
export const OVERLOAD_SMOKE: OverloadConfig = {
  mode: 'smoke',
  multiples: [0.5, 1, 1.5, 3],
  capacity: {
    connections: { memory: 4, postgres: 4 },
    warmupSeconds: 0,
    secondsPerRun: 10,
    runs: 1,
    maxRequestsPerRun: 200,
  },
  warmupSeconds: 0.05,
  secondsPerLevel: 0.15,
  freshServerPerLevel: false,
  maxConnections: 256,
  preconnect: 16,
  deadlineMs: 1000,
  poolMax: 4,
  loadShedding: { 'memory list': {}, 'postgres create': { maxInFlight: 4 * 4 } },
};

export const overloadConfig = (mode: 'full' | 'smoke'): OverloadConfig =>
  mode === 'full' ? OVERLOAD_FULL : OVERLOAD_SMOKE;

const capacitySeconds = ({ mode, capacity }: OverloadConfig): number =>
  mode === 'full' ? capacity.warmupSeconds + capacity.runs * capacity.secondsPerRun : 0.5;

/**
 * Seconds the measurement should take per case, for the ETA (`progress.plan` it once per
 * case). The children's starts and the drain after each level are in the slack.
 */
export const overloadPlannedSeconds = (config: OverloadConfig): number =>
  capacitySeconds(config) +
  2 * config.multiples.length * (config.warmupSeconds + config.secondsPerLevel);

export interface OverloadCapacity {
  /** The best 2xx/s of the closed-loop runs: what 1x means. */
  readonly rps: number;
  readonly runs: number[];
  readonly p99Ms: number;
  readonly connections: number;
}

/** One offered load on one fresh server. */
export interface OverloadLevel {
  /** Offered load over the capacity. */
  readonly multiple: number;
  readonly load: OpenLoopResult;
  /** Goodput over the capacity. */
  readonly goodputRatio: number;
  /** CPU seconds of the server process per second of the run (to its last answer); null without /proc. */
  readonly serverCpuShare: number | null;
  /** The server's heap and event loop over the run; null when the child did not answer. */
  readonly server: ServerProbe | null;
}

export interface OverloadRun {
  /** `false`: the server as it is; otherwise what `loadShedding` was given. */
  readonly loadShedding: LoadSheddingOption;
  readonly levels: OverloadLevel[];
}

export interface OverloadCase {
  readonly name: OverloadCaseName;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly capacity: OverloadCapacity;
  /** Shedding off, then on. */
  readonly runs: OverloadRun[];
}

export interface OverloadResults {
  readonly mode: 'full' | 'smoke';
  readonly multiples: readonly number[];
  readonly warmupSeconds: number;
  readonly secondsPerLevel: number;
  readonly maxConnections: number;
  readonly deadlineMs: number;
  readonly poolMax: number;
  readonly cases: OverloadCase[];
  /** Cases left out, and why (no PostgreSQL). */
  readonly skipped: string[];
}

export interface OverloadOptions {
  /** PostgreSQL on 127.0.0.1; without it the PostgreSQL case is skipped. */
  readonly databaseUrl?: string | undefined;
  /** Schemas this creates are pushed here, for the caller to drop. */
  readonly schemas?: string[];
  /** Only these cases (default both). */
  readonly cases?: readonly OverloadCaseName[];
}

interface CaseSetup {
  readonly name: OverloadCaseName;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly expected: number;
  readonly connections: number;
  readonly spec: (loadShedding: LoadSheddingOption) => OverloadServerSpec;
}

const startOverloadServer = (spec: OverloadServerSpec): Promise<BenchChild> => startServer(spec);

const url = (child: BenchChild, path: string) => `http://127.0.0.1:${child.port}${path}`;

function request(setup: CaseSetup) {
  return setup.method === 'GET'
    ? { method: 'GET' as const, headers: { authorization: AUTHORIZATION } }
    : {
        method: 'POST' as const,
        headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
        body: CREATE_BODY,
      };
}

/** One request first: a server that answers something else would make every figure wrong. */
async function checkAnswers(setup: CaseSetup, child: BenchChild): Promise<void> {
  const { method, headers, body } = { body: undefined, ...request(setup) };
  const answer = await probe(url(child, setup.path), {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  expectStatus(`overload ${setup.name}`, answer, setup.expected);
}

/** The capacity, on `child` (shedding off). */
async function measureCapacity(
  config: OverloadConfig,
  progress: Progress,
  setup: CaseSetup,
  child: BenchChild,
): Promise<OverloadCapacity> {
  const { warmupSeconds, secondsPerRun, runs, maxRequestsPerRun } = config.capacity;
  await checkAnswers(setup, child);
  const run = (seconds: number) =>
    load({
      url: url(child, setup.path),
      ...request(setup),
      connections: setup.connections,
      seconds,
      maxRequests: maxRequestsPerRun,
    });
  if (warmupSeconds > 0) await run(warmupSeconds);
  const results = [];
  for (let index = 0; index < runs; index++) {
    const result = await run(secondsPerRun);
    if (result.failures > 0 || result.requests === 0) {
      throw new Error(
        `overload ${setup.name} capacity: ${result.failures} failed, ${result.requests} succeeded`,
      );
    }
    results.push(result);
  }
  const best = results.reduce((a, b) => (b.rps > a.rps ? b : a));
  progress.log(
    `overload ${setup.name}: capacity ${Math.round(best.rps)} req/s (closed loop, ${setup.connections} connections, p99 ${best.p99Ms.toFixed(2)} ms)`,
  );
  return {
    rps: best.rps,
    runs: results.map((result) => result.rps),
    p99Ms: best.p99Ms,
    connections: setup.connections,
  };
}

async function measureLevel(
  config: OverloadConfig,
  setup: CaseSetup,
  capacity: number,
  multiple: number,
  child: BenchChild,
): Promise<OverloadLevel> {
  await checkAnswers(setup, child);
  let cpuBefore: number | undefined;
  // The warm-up runs on the same connections, so the measured run starts with every one of
  // them accepted and used by the server.
  const result = await openLoop({
    url: url(child, setup.path),
    ...request(setup),
    rate: capacity * multiple,
    seconds: config.secondsPerLevel,
    maxConnections: config.maxConnections,
    preconnect: config.preconnect,
    deadlineMs: config.deadlineMs,
    warmup: { rate: capacity * Math.min(0.5, multiple), seconds: config.warmupSeconds },
    beforeMeasure: async () => {
      await child.request({ type: 'overload-probe', action: 'start' }, 30_000);
      cpuBefore = processCpuSeconds(child.pid);
    },
  });
  const cpuAfter = processCpuSeconds(child.pid);
  if (result.warmup !== undefined && result.warmup['2xx'] === 0) {
    throw new Error(`overload ${setup.name} at ${multiple}x: no 2xx answer in the warm-up`);
  }
  // A child that cannot answer within the deadline left a queue behind: say so with null.
  const server = (await child
    .request({ type: 'overload-probe', action: 'read' }, 30_000)
    .catch(() => null)) as ServerProbe | null;
  return {
    multiple,
    load: result,
    goodputRatio: result.goodputRps / capacity,
    serverCpuShare:
      cpuBefore === undefined || cpuAfter === undefined
        ? null
        : (cpuAfter - cpuBefore) / result.elapsedSeconds,
    server,
  };
}

/** Starts `count` children of one spec together (before any load), or none if one fails. */
async function startChildren(spec: OverloadServerSpec, count: number): Promise<BenchChild[]> {
  const children = await Promise.allSettled(
    Array.from({ length: count }, () => startOverloadServer(spec)),
  );
  const started = children.flatMap((child) => (child.status === 'fulfilled' ? [child.value] : []));
  const failed = children.find((child) => child.status === 'rejected');
  if (failed === undefined) return started;
  await Promise.all(started.map((child) => child.stop()));
  throw failed.reason;
}

/**
 * Every level of one shedding mode, each on a child of its own (`children[i]`) or all on
 * `children[0]` (smoke). The capacity, first, on a child of its own, or on `children[0]` when
 * shared (shedding off).
 */
async function measureRun(
  config: OverloadConfig,
  progress: Progress,
  setup: CaseSetup,
  capacity: number,
  loadShedding: LoadSheddingOption,
  children: readonly BenchChild[],
): Promise<OverloadRun> {
  const label = `overload ${setup.name}, shedding ${loadShedding === false ? 'off' : 'on'}`;
  const levels: OverloadLevel[] = [];
  for (const [index, multiple] of config.multiples.entries()) {
    const child = (children[index] ?? children[0]) as BenchChild;
    const level = await measureLevel(config, setup, capacity, multiple, child);
    if (children.length > 1) await child.stop();
    levels.push(level);
    progress.done(config.warmupSeconds + config.secondsPerLevel);
    progress.log(`${label}: ${describeLevel(level)}`);
  }
  return { loadShedding, levels };
}

/** One case: its capacity, then every level with shedding off and on. */
async function measureCase(
  config: OverloadConfig,
  progress: Progress,
  setup: CaseSetup,
): Promise<OverloadCase> {
  const perMode = config.freshServerPerLevel ? config.multiples.length : 1;
  const children: BenchChild[] = [];
  try {
    progress.log(`overload ${setup.name}: measuring the capacity (closed loop)`);
    // With fresh servers, one more for the capacity.
    const fresh = config.freshServerPerLevel;
    const off = await startChildren(setup.spec(false), perMode + (fresh ? 1 : 0));
    children.push(...off);
    const forCapacity = (fresh ? off.pop() : off[0]) as BenchChild;
    const capacity = await measureCapacity(config, progress, setup, forCapacity);
    if (fresh) await forCapacity.stop();
    progress.done(capacitySeconds(config));
    const runs = [await measureRun(config, progress, setup, capacity.rps, false, off)];
    await Promise.all(off.map((child) => child.stop()));
    const on = await startChildren(setup.spec(config.loadShedding[setup.name]), perMode);
    children.push(...on);
    runs.push(
      await measureRun(config, progress, setup, capacity.rps, config.loadShedding[setup.name], on),
    );
    return { name: setup.name, method: setup.method, path: setup.path, capacity, runs };
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}

/** One line of progress for a level. */
export function describeLevel(level: OverloadLevel): string {
  const { load: run } = level;
  const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(1));
  const heap = level.server === null ? '?' : (level.server.heapUsedMaxBytes / 2 ** 20).toFixed(0);
  return (
    `${level.multiple}x (${Math.round(run.offeredRps)}/s offered, ${Math.round(run.sentRps)}/s sent): ` +
    `goodput ${Math.round(run.goodputRps)}/s (${level.goodputRatio.toFixed(2)}x), ` +
    `2xx p50/p99 ${ms(run.latency2xx.p50Ms)}/${ms(run.latency2xx.p99Ms)} ms, ` +
    `503 ${run.status['503']} (p99 ${ms(run.latency503.p99Ms)} ms), other ${run.status.other}, ` +
    `dropped ${run.dropped}, timed out ${run.timedOut}, errors ${run.errors}, ` +
    `max heap ${heap} MiB, server CPU ${level.serverCpuShare === null ? '?' : level.serverCpuShare.toFixed(2)}`
  );
}

/**
 * The memory list and the PostgreSQL create past capacity, with the core's
 * load shedding off and on. `databaseUrl` missing: the PostgreSQL case is skipped.
 */
export async function measureOverload(
  config: OverloadConfig,
  progress: Progress,
  options: OverloadOptions = {},
): Promise<OverloadResults> {
  const wanted = options.cases ?? ['memory list', 'postgres create'];
  const cases: OverloadCase[] = [];
  const skipped: string[] = [];
  for (const name of wanted) {
    let setup: CaseSetup;
    if (name === 'memory list') {
      setup = {
        name,
        method: 'GET',
        path: LIST_PATH,
        expected: 200,
        connections: config.capacity.connections.memory,
        spec: (loadShedding) => ({ kind: 'node-ours-overload', loadShedding }),
      };
    } else {
      const databaseUrl = options.databaseUrl;
      if (databaseUrl === undefined) {
        skipped.push(`${name}: no PostgreSQL`);
        continue;
      }
      const schema = benchSchema('overload');
      options.schemas?.push(schema);
      await seedPostgres(databaseUrl, schema, 1_000);
      setup = {
        name,
        method: 'POST',
        path: CREATE_PATH,
        expected: 201,
        connections: config.capacity.connections.postgres,
        spec: (loadShedding) => ({
          kind: 'node-ours-postgres-overload',
          loadShedding,
          databaseUrl,
          schema,
          poolMax: config.poolMax,
        }),
      };
    }
    cases.push(await measureCase(config, progress, setup));
  }
  return {
    mode: config.mode,
    multiples: config.multiples,
    warmupSeconds: config.warmupSeconds,
    secondsPerLevel: config.secondsPerLevel,
    maxConnections: config.maxConnections,
    deadlineMs: config.deadlineMs,
    poolMax: config.poolMax,
    cases,
    skipped,
  };
}
