/**
 * Past capacity, measured where the load generator never limits: the service as users run it
 * (`petstore-service`), every server under test in a CPU-quota group of its own (cgroup v1 `cpu`,
 * see overload-deployments.ts), the open-loop generator (open-loop.ts) outside them, on the other
 * core. Three cases:
 *
 * - fleet memory list: two instances on `memory:` behind the deploy's HAProxy;
 * - postgres keyed create: one instance on PostgreSQL (its postmaster under a quota too);
 * - alone memory list: one instance facing clients directly, with the cost of a refusal beside
 *   the cost of a request (refusal-cost.ts).
 *
 * Per case: the capacity C, the most 2xx per second a closed loop (autocannon) gets under the
 * quotas; then open-loop arrivals at 0.5x, 1x, 1.5x and 3x C, latency from each arrival's
 * scheduled time, a 2 s deadline, with the service's defaults and tuned as docs/operations.md
 * says, each `runs` times on a fresh deployment (levels in rising order; the defaults' first run
 * on the capacity's own), medians over the runs.
 * Beside the answers: the parts' CPU, the instances' heap and event loop, and whether the
 * generator kept up (sent on time, read on time).
 */
import { createTestDatabase } from '@petstore/test-postgres';
import { cpuGroupUnsupported } from '../cgroup.js';
import { processCpuSeconds } from '../cpu-usage.js';
import { AUTHORIZATION, CREATE_BODY, CREATE_PATH, LIST_PATH } from '../fixtures.js';
import { load } from '../load.js';
import { type OpenLoopResult, openLoop } from '../open-loop.js';
import {
  type Deployment,
  type DeploymentKind,
  postmasterPid,
  quotaPostgres,
  startDeployment,
} from '../overload-deployments.js';
import type { Progress } from '../progress.js';
import type { ServerProbe } from '../servers/overload.js';
import { median } from '../stats.js';
import { measureRefusalCost, type RefusalCost } from './refusal-cost.js';

export type OverloadCaseName = 'fleet memory list' | 'postgres keyed create' | 'alone memory list';
export const OVERLOAD_CASES: readonly OverloadCaseName[] = [
  'fleet memory list',
  'postgres keyed create',
  'alone memory list',
];
export type OverloadModeName = 'defaults' | 'tuned';

export interface OverloadConfig {
  readonly mode: 'full' | 'smoke';
  /** Offered load as multiples of the capacity, in rising order. */
  readonly multiples: readonly number[];
  /** Each mode's levels run this many times, each on a fresh deployment; medians over them. */
  readonly runs: number;
  readonly capacity: {
    /** autocannon's connections per case. */
    readonly connections: Readonly<Record<DeploymentKind, number>>;
    readonly warmupSeconds: number;
    readonly secondsPerRun: number;
    /** The capacity is the best of these runs. */
    readonly runs: number;
    /** Smoke runs end by count (bounded by the seconds as well). */
    readonly maxRequestsPerRun?: number;
  };
  /**
   * Closed-loop load on each instance, before it enters its quota group, at every start (see
   * overload-deployments.ts): 0 for none.
   */
  readonly instanceWarmupSeconds: number;
  /** Open-loop warm-up before each level, at the lower of 0.5x and its level. */
  readonly warmupSeconds: number;
  readonly secondsPerLevel: number;
  /**
   * Each level's live-heap phase, once a run's levels are measured (see measureLiveHeap):
   * arrivals at the level's rate for `seconds`, the instances' full collection `atMs` into them.
   */
  readonly liveHeap: { readonly seconds: number; readonly atMs: number };
  /** The generator's cap on open connections; arrivals past it are dropped. */
  readonly maxConnections: number;
  /** Connections opened before each run's clock starts (open-loop.ts). */
  readonly preconnect: number;
  /** From the scheduled time; later is timed out. */
  readonly deadlineMs: number;
  /**
   * Loopback addresses the generator's connections come from (127.0.1.1 ...): many clients, so
   * the instances' and the balancer's caps per address see what they would.
   */
  readonly clientAddresses: number;
  /** CPUs of each quota: an instance of each case, and PostgreSQL. */
  readonly quotas: Readonly<Record<DeploymentKind, number>> & { readonly postmaster: number };
  /** Demo pets each instance seeds (a full list page). */
  readonly seedPets: number;
  /** The refusal-cost runs (closed loop, rounds interleaved) of the alone case. */
  readonly refusal: {
    readonly connections: number;
    readonly seconds: number;
    readonly rounds: number;
  };
}

export const OVERLOAD_FULL: OverloadConfig = {
  mode: 'full',
  multiples: [0.5, 1, 1.5, 3],
  runs: 2,
  capacity: {
    connections: { fleet: 40, postgres: 32, alone: 20 },
    warmupSeconds: 4,
    secondsPerRun: 4,
    runs: 2,
  },
  instanceWarmupSeconds: 3,
  warmupSeconds: 2,
  secondsPerLevel: 4,
  liveHeap: { seconds: 1.5, atMs: 1000 },
  maxConnections: 8192,
  preconnect: 1024,
  deadlineMs: 2000,
  clientAddresses: 64,
  quotas: { fleet: 0.1, postgres: 0.5, alone: 0.15, postmaster: 0.15 },
  seedPets: 100,
  refusal: { connections: 16, seconds: 3, rounds: 3 },
};

/** The same code paths in seconds: tiny loads, one run. */
export const OVERLOAD_SMOKE: OverloadConfig = {
  mode: 'smoke',
  multiples: [0.5, 1, 1.5, 3],
  runs: 1,
  capacity: {
    connections: { fleet: 4, postgres: 4, alone: 4 },
    warmupSeconds: 0,
    secondsPerRun: 10,
    runs: 1,
    maxRequestsPerRun: 200,
  },
  instanceWarmupSeconds: 0,
  warmupSeconds: 0.05,
  secondsPerLevel: 0.15,
  liveHeap: { seconds: 0.15, atMs: 100 },
  maxConnections: 256,
  preconnect: 16,
  deadlineMs: 1000,
  clientAddresses: 8,
  quotas: { fleet: 0.1, postgres: 0.5, alone: 0.15, postmaster: 0.15 },
  seedPets: 30,
  refusal: { connections: 2, seconds: 0.3, rounds: 1 },
};

export const overloadConfig = (mode: 'full' | 'smoke'): OverloadConfig =>
  mode === 'full' ? OVERLOAD_FULL : OVERLOAD_SMOKE;

/** Seconds per case, for the ETA: capacity, two modes' runs and the starts (about 3 s each). */
export const overloadPlannedSeconds = (config: OverloadConfig): number => {
  const capacity =
    config.mode === 'full'
      ? config.capacity.warmupSeconds + config.capacity.runs * config.capacity.secondsPerRun
      : 0.5;
  const level = config.warmupSeconds + config.secondsPerLevel + 1 + config.liveHeap.seconds + 1;
  const start = 3 + 2 * config.instanceWarmupSeconds;
  return capacity + start + 2 * config.runs * (start + config.multiples.length * level);
};

export interface OverloadCapacity {
  /** The best 2xx/s of the closed-loop runs: what 1x means. */
  readonly rps: number;
  readonly runs: number[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly connections: number;
}

/** One offered load, one run. */
export interface OverloadLevel {
  readonly multiple: number;
  readonly load: OpenLoopResult;
  /** Goodput over the capacity. */
  readonly goodputRatio: number;
  /** CPU seconds per second of the run (to its last answer): 1.00 is one core. */
  readonly cpu: {
    readonly instances: number | null;
    readonly balancer: number | null;
    readonly postgres: number | null;
  };
  /** The instances' heap and event loop (the worst instance); null when one did not answer. */
  readonly server: ServerProbe | null;
  /** The largest live heap of any instance, from the level's own phase (see measureLiveHeap). */
  readonly liveHeapBytes: number | null;
}

/** One level's medians over the runs. */
export interface OverloadLevelSummary {
  readonly multiple: number;
  readonly offeredRps: number;
  readonly goodputRatio: number;
  readonly p50Ms2xx: number;
  readonly p99Ms2xx: number;
  /** 2xx and 503 together. */
  readonly p99MsAnswered: number;
  readonly refused: number;
  /** 503s without the API's JSON body type and Retry-After, and any other status. */
  readonly badAnswers: number;
  /** Timed out, reset or closed mid-request, or dropped at the generator's cap. */
  readonly unanswered: number;
  readonly scheduled: number;
  /** The largest heapUsed (young generation included) of any instance. */
  readonly heapPeakBytes: number;
  /** The largest live heap (after a full collection, under the load): what the heap target reads. */
  readonly liveHeapBytes: number;
  readonly instancesCpu: number;
  readonly generator: GeneratorCheck;
}

/** Whether the generator kept up: what it sent on time, and how late its own loop ran (reads). */
export interface GeneratorCheck {
  /** Sent or dropped per second of its window, over the offered rate. */
  readonly handledShare: number;
  readonly sendLagP99Ms: number;
  readonly loopDelayP99Ms: number;
  readonly unsent: number;
  readonly keptUp: boolean;
}

export interface OverloadModeRun {
  readonly mode: OverloadModeName;
  /** What the mode sets beside the defaults (environment variables), for the report. */
  readonly settings: Readonly<Record<string, string>>;
  /** Every run's levels, in order. */
  readonly runs: OverloadLevel[][];
  readonly levels: OverloadLevelSummary[];
}

export interface OverloadCase {
  readonly name: OverloadCaseName;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** Each instance's quota and PostgreSQL's, in CPUs; undefined: none. */
  readonly quotas: { readonly instance?: number; readonly postgres?: number };
  readonly capacity: OverloadCapacity;
  /** Defaults, then tuned. */
  readonly modes: OverloadModeRun[];
  /** The alone case: the cost of a refusal beside the cost of a request. */
  readonly refusalCost?: RefusalCost;
}

export interface OverloadResults {
  readonly mode: 'full' | 'smoke';
  readonly multiples: readonly number[];
  readonly runs: number;
  /** Closed-loop seconds each instance got at full speed before its quota (absent: none). */
  readonly instanceWarmupSeconds?: number;
  readonly warmupSeconds: number;
  readonly secondsPerLevel: number;
  readonly maxConnections: number;
  readonly deadlineMs: number;
  readonly clientAddresses: number;
  readonly cases: OverloadCase[];
  /** Cases left out, and why. */
  readonly skipped: string[];
  /** What the reader must know (no quotas, a generator that fell behind). */
  readonly notes: string[];
}

export interface OverloadOptions {
  /** PostgreSQL on 127.0.0.1; without it the PostgreSQL case is skipped. */
  readonly databaseUrl?: string | undefined;
  /** Whether the bench started that server itself (only then is its postmaster put under a quota). */
  readonly ownDatabase?: boolean;
  /** Only these cases (default all). */
  readonly cases?: readonly OverloadCaseName[];
  /** Whether HAProxy is here (the fleet case needs it). */
  readonly haproxy?: boolean;
}

/** Limits of the generator check: sent on time, read on time. */
export const GENERATOR_LIMITS = { handledShare: 0.95, sendLagP99Ms: 10, loopDelayP99Ms: 10 };

export function generatorCheck(run: OpenLoopResult): GeneratorCheck {
  const handledShare = (run.sent + run.dropped) / run.sendWindowSeconds / run.offeredRps;
  const sendLagP99Ms = Number.isNaN(run.sendLag.p99Ms) ? 0 : run.sendLag.p99Ms;
  const loopDelayP99Ms = run.generatorLoopDelay.p99Ms;
  return {
    handledShare,
    sendLagP99Ms,
    loopDelayP99Ms,
    unsent: run.unsent,
    keptUp:
      handledShare >= GENERATOR_LIMITS.handledShare &&
      sendLagP99Ms <= GENERATOR_LIMITS.sendLagP99Ms &&
      loopDelayP99Ms <= GENERATOR_LIMITS.loopDelayP99Ms &&
      run.unsent === 0,
  };
}

interface CaseSetup {
  readonly name: OverloadCaseName;
  readonly kind: DeploymentKind;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly keyed: boolean;
  readonly expected: number;
}

const SETUPS: Readonly<Record<OverloadCaseName, CaseSetup>> = {
  'fleet memory list': {
    name: 'fleet memory list',
    kind: 'fleet',
    method: 'GET',
    path: LIST_PATH,
    keyed: false,
    expected: 200,
  },
  'postgres keyed create': {
    name: 'postgres keyed create',
    kind: 'postgres',
    method: 'POST',
    path: CREATE_PATH,
    keyed: true,
    expected: 201,
  },
  'alone memory list': {
    name: 'alone memory list',
    kind: 'alone',
    method: 'GET',
    path: LIST_PATH,
    keyed: false,
    expected: 200,
  },
};

const requestOf = (setup: CaseSetup) =>
  setup.method === 'GET'
    ? { method: 'GET' as const, headers: { authorization: AUTHORIZATION } }
    : {
        method: 'POST' as const,
        headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
        body: CREATE_BODY,
      };

/**
 * What "tuned" sets, from docs/operations.md: the fleet's queue timeout halved (250 ms: a shorter
 * wait for what the balancer serves at overload); on PostgreSQL an in-flight limit of 2 x the pool
 * (20) instead of 4 x; alone, a loop delay limit of 200 ms (for a 2 s client deadline).
 */
function tunedSettings(setup: CaseSetup): {
  env: Record<string, string>;
  balancer: Record<string, string>;
} {
  switch (setup.kind) {
    case 'fleet':
      return { env: {}, balancer: { PETSTORE_QUEUE_TIMEOUT: '250ms' } };
    case 'postgres':
      return { env: { LOAD_SHEDDING_MAX_IN_FLIGHT: '20' }, balancer: {} };
    case 'alone':
      return { env: { LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS: '200' }, balancer: {} };
  }
}

/** The case's own request at `url`, closed loop: autocannon's `connections` for `seconds`. */
const closedLoop = (
  setup: CaseSetup,
  url: string,
  connections: number,
  seconds: number,
  maxRequests?: number,
) =>
  load({
    url: `${url}${setup.path}`,
    ...requestOf(setup),
    idempotencyKeys: setup.keyed,
    connections,
    seconds,
    maxRequests,
  });

/** The case's own request on one instance, closed loop, before its quota (none in smoke runs). */
const instanceWarmup = (config: OverloadConfig, setup: CaseSetup) =>
  config.instanceWarmupSeconds <= 0
    ? undefined
    : async (url: string, instances: number): Promise<void> => {
        // As long, per instance, as one instance alone would get.
        await closedLoop(setup, url, 8 * instances, config.instanceWarmupSeconds * instances);
      };

/** The loopback addresses the generator's connections come from. */
const clientAddresses = (count: number): string[] =>
  Array.from({ length: count }, (_, n) => `127.0.1.${n + 1}`);

/** A case's open arrivals at `rate`: its request, from the clients' addresses, in the bounds. */
const arrivals = (
  config: OverloadConfig,
  setup: CaseSetup,
  deployment: Deployment,
  rate: number,
) => ({
  url: `${deployment.url}${setup.path}`,
  ...requestOf(setup),
  idempotencyKeys: setup.keyed,
  rate,
  maxConnections: config.maxConnections,
  deadlineMs: config.deadlineMs,
  localAddresses: clientAddresses(config.clientAddresses),
});

async function measureCapacity(
  config: OverloadConfig,
  setup: CaseSetup,
  deployment: Deployment,
): Promise<OverloadCapacity> {
  const { warmupSeconds, secondsPerRun, runs, maxRequestsPerRun } = config.capacity;
  const connections = config.capacity.connections[setup.kind];
  const run = (seconds: number) =>
    closedLoop(setup, deployment.url, connections, seconds, maxRequestsPerRun);
  if (warmupSeconds > 0) await run(warmupSeconds);
  const results = [];
  for (let index = 0; index < runs; index++) {
    const result = await run(secondsPerRun);
    if (result.requests === 0) {
      throw new Error(`overload ${setup.name} capacity: no 2xx (${result.failures} failed)`);
    }
    results.push(result);
  }
  const best = results.reduce((a, b) => (b.rps > a.rps ? b : a));
  return {
    rps: best.rps,
    runs: results.map((result) => result.rps),
    p50Ms: best.p50Ms,
    p99Ms: best.p99Ms,
    connections,
  };
}

interface CpuReaders {
  readonly instances: () => number | undefined;
  readonly balancer: () => number | undefined;
  readonly postgres: () => number | undefined;
}

async function measureLevel(
  config: OverloadConfig,
  setup: CaseSetup,
  deployment: Deployment,
  capacity: number,
  multiple: number,
  readers: CpuReaders,
): Promise<OverloadLevel> {
  let before = { instances: undefined, balancer: undefined, postgres: undefined } as Record<
    keyof CpuReaders,
    number | undefined
  >;
  const result = await openLoop({
    ...arrivals(config, setup, deployment, capacity * multiple),
    seconds: config.secondsPerLevel,
    preconnect: config.preconnect,
    warmup: { rate: capacity * Math.min(0.5, multiple), seconds: config.warmupSeconds },
    beforeMeasure: async () => {
      await deployment.probe('start');
      before = {
        instances: readers.instances(),
        balancer: readers.balancer(),
        postgres: readers.postgres(),
      };
    },
  });
  const share = (part: keyof CpuReaders): number | null => {
    const [start, end] = [before[part], readers[part]()];
    return start === undefined || end === undefined ? null : (end - start) / result.elapsedSeconds;
  };
  const cpu = {
    instances: share('instances'),
    balancer: share('balancer'),
    postgres: share('postgres'),
  };
  const server = await deployment.probe('read');
  if (result.warmup !== undefined && result.warmup['2xx'] === 0) {
    throw new Error(`overload ${setup.name} at ${multiple}x: no 2xx answer in the warm-up`);
  }
  return {
    multiple,
    load: result,
    goodputRatio: result.goodputRps / capacity,
    cpu,
    server,
    liveHeapBytes: null,
  };
}

/**
 * The live heap at `multiple` x the capacity: arrivals at that rate, the instances' full
 * collection under them (ServerProbe.liveHeapBytes); their answers count nowhere. Only once a
 * run's levels are measured, in rising order: a full collection clears the objects V8's
 * optimised code embeds, V8 throws that code away, and at 0.1 CPU an instance then answered a
 * third of its rate for seconds while V8 compiled it again. A later phase runs on code an
 * earlier one threw away: slower, its queues no shorter, so a high level reads no less.
 */
async function measureLiveHeap(
  config: OverloadConfig,
  setup: CaseSetup,
  deployment: Deployment,
  capacity: number,
  multiple: number,
): Promise<number | null> {
  await openLoop({
    ...arrivals(config, setup, deployment, capacity * multiple),
    seconds: config.liveHeap.seconds,
    beforeMeasure: async () => {
      await deployment.probe('start', config.liveHeap.atMs);
    },
  });
  return (await deployment.probe('read'))?.liveHeapBytes ?? null;
}

/** A level's medians over its runs. */
export function summarize(levels: readonly OverloadLevel[]): OverloadLevelSummary {
  const of = (pick: (level: OverloadLevel) => number) => median(levels.map(pick));
  const first = levels[0] as OverloadLevel;
  const checks = levels.map((level) => generatorCheck(level.load));
  return {
    multiple: first.multiple,
    offeredRps: first.load.offeredRps,
    goodputRatio: of((level) => level.goodputRatio),
    p50Ms2xx: of((level) => level.load.latency2xx.p50Ms),
    p99Ms2xx: of((level) => level.load.latency2xx.p99Ms),
    p99MsAnswered: of((level) => level.load.latencyAnswered.p99Ms),
    refused: of((level) => level.load.status['503']),
    badAnswers: of((level) => level.load.badRefusals + level.load.status.other),
    unanswered: of((level) => level.load.timedOut + level.load.errors + level.load.dropped),
    scheduled: of((level) => level.load.scheduled),
    heapPeakBytes: of((level) => level.server?.heapUsedMaxBytes ?? Number.NaN),
    liveHeapBytes: of((level) => level.liveHeapBytes ?? Number.NaN),
    instancesCpu: of((level) => level.cpu.instances ?? Number.NaN),
    generator: {
      handledShare: median(checks.map((check) => check.handledShare)),
      sendLagP99Ms: median(checks.map((check) => check.sendLagP99Ms)),
      loopDelayP99Ms: median(checks.map((check) => check.loopDelayP99Ms)),
      unsent: median(checks.map((check) => check.unsent)),
      keptUp: checks.every((check) => check.keptUp),
    },
  };
}

/** One line of progress for a level. */
export function describeLevel(level: OverloadLevel): string {
  const { load: run } = level;
  const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(1));
  const heap = level.server === null ? '?' : (level.server.heapUsedMaxBytes / 2 ** 20).toFixed(0);
  const check = generatorCheck(run);
  return (
    `${level.multiple}x (${Math.round(run.offeredRps)}/s offered, ${Math.round(run.sentRps)}/s sent): ` +
    `goodput ${Math.round(run.goodputRps)}/s (${level.goodputRatio.toFixed(2)}x), ` +
    `2xx p50/p99 ${ms(run.latency2xx.p50Ms)}/${ms(run.latency2xx.p99Ms)} ms, ` +
    `503 ${run.status['503']} (bad ${run.badRefusals}, p99 ${ms(run.latency503.p99Ms)} ms), other ${run.status.other}, ` +
    `dropped ${run.dropped}, timed out ${run.timedOut}, errors ${run.errors}, ` +
    `max heap ${heap} MiB, CPU instances ${level.cpu.instances?.toFixed(2) ?? '?'}` +
    `${level.cpu.balancer === null ? '' : ` haproxy ${level.cpu.balancer.toFixed(2)}`}` +
    `${level.cpu.postgres === null ? '' : ` postgres ${level.cpu.postgres.toFixed(2)}`}, ` +
    `generator ${check.keptUp ? 'kept up' : 'FELL BEHIND'} (lag p99 ${ms(check.sendLagP99Ms)} ms, loop p99 ${ms(check.loopDelayP99Ms)} ms)`
  );
}

interface Quotas {
  readonly instanceCpus: number | undefined;
  /** PostgreSQL's quota group's CPU seconds, when it has one. */
  readonly postgresSeconds: () => number | undefined;
}

async function measureMode(
  config: OverloadConfig,
  progress: Progress,
  setup: CaseSetup,
  capacity: number,
  mode: OverloadModeName,
  settings: { env: Record<string, string>; balancer: Record<string, string> },
  quotas: Quotas,
  databaseUrl: string | undefined,
  first?: Deployment,
): Promise<OverloadModeRun> {
  const runs: OverloadLevel[][] = [];
  for (let run = 0; run < config.runs; run++) {
    const deployment =
      run === 0 && first !== undefined
        ? first
        : await startDeployment({
            kind: setup.kind,
            instanceCpus: quotas.instanceCpus,
            env: settings.env,
            balancerSettings: settings.balancer,
            databaseUrl,
            seedPets: config.seedPets,
            warmup: instanceWarmup(config, setup),
          });
    try {
      const readers: CpuReaders = {
        instances: () => deployment.cpuSeconds().instances ?? sumCpu(deployment),
        balancer: () =>
          deployment.balancer === undefined
            ? undefined
            : processCpuSeconds(deployment.balancer.pid),
        postgres: quotas.postgresSeconds,
      };
      const measured: OverloadLevel[] = [];
      for (const multiple of config.multiples) {
        const level = await measureLevel(config, setup, deployment, capacity, multiple, readers);
        measured.push(level);
        progress.done(config.warmupSeconds + config.secondsPerLevel + 1);
        progress.log(`overload ${setup.name}, ${mode}, run ${run + 1}: ${describeLevel(level)}`);
      }
      const levels: OverloadLevel[] = [];
      for (const level of measured) {
        const live = await measureLiveHeap(config, setup, deployment, capacity, level.multiple);
        levels.push({ ...level, liveHeapBytes: live });
        progress.done(config.liveHeap.seconds + 1);
      }
      progress.log(
        `overload ${setup.name}, ${mode}, run ${run + 1}: live heap MiB ` +
          levels
            .map(
              (level) =>
                `${level.multiple}x ${((level.liveHeapBytes ?? Number.NaN) / 2 ** 20).toFixed(1)}`,
            )
            .join(', '),
      );
      runs.push(levels);
    } finally {
      await deployment.stop();
    }
    progress.done(3);
  }
  const levels = config.multiples.map((_, index) =>
    summarize(runs.map((levels) => levels[index] as OverloadLevel)),
  );
  return { mode, settings: { ...settings.env, ...settings.balancer }, runs, levels };
}

/** The instances' CPU from /proc when there is no quota group to read it from. */
function sumCpu(deployment: Deployment): number | undefined {
  let total = 0;
  for (const instance of deployment.instances) {
    const seconds = processCpuSeconds(instance.pid);
    if (seconds === undefined) return undefined;
    total += seconds;
  }
  return total;
}

async function measureCase(
  config: OverloadConfig,
  progress: Progress,
  setup: CaseSetup,
  quotas: Quotas,
  databaseUrl: string | undefined,
): Promise<OverloadCase> {
  progress.log(`overload ${setup.name}: measuring the capacity (closed loop, under the quotas)`);
  const deployment = await startDeployment({
    kind: setup.kind,
    instanceCpus: quotas.instanceCpus,
    env: {},
    databaseUrl,
    seedPets: config.seedPets,
    warmup: instanceWarmup(config, setup),
  });
  let capacity: OverloadCapacity;
  try {
    capacity = await measureCapacity(config, setup, deployment);
  } catch (error) {
    await deployment.stop();
    throw error;
  }
  progress.log(
    `overload ${setup.name}: capacity ${Math.round(capacity.rps)} 2xx/s (closed loop, ${capacity.connections} connections, p50 ${capacity.p50Ms.toFixed(2)} ms)`,
  );
  // The defaults' first run on the same deployment: a closed loop leaves no queue behind.
  const defaults = await measureMode(
    config,
    progress,
    setup,
    capacity.rps,
    'defaults',
    { env: {}, balancer: {} },
    quotas,
    databaseUrl,
    deployment,
  );
  const tuned = await measureMode(
    config,
    progress,
    setup,
    capacity.rps,
    'tuned',
    tunedSettings(setup),
    quotas,
    databaseUrl,
  );
  const refusalCost =
    setup.kind === 'alone'
      ? await measureRefusalCost(
          { ...config.refusal, seedPets: config.seedPets },
          progress,
          quotas.instanceCpus,
        )
      : undefined;
  return {
    name: setup.name,
    method: setup.method,
    path: setup.path,
    quotas: {
      ...(quotas.instanceCpus === undefined ? {} : { instance: quotas.instanceCpus }),
      ...(setup.kind === 'postgres' && quotas.postgresSeconds() !== undefined
        ? { postgres: config.quotas.postmaster }
        : {}),
    },
    capacity,
    modes: [defaults, tuned],
    ...(refusalCost === undefined ? {} : { refusalCost }),
  };
}

/**
 * Every case past capacity. Without a writable cgroup v1 cpu controller a full run skips the
 * section (say why), a smoke run measures without quotas (the note says so); without HAProxy or
 * PostgreSQL their case is skipped.
 */
export async function measureOverload(
  config: OverloadConfig,
  progress: Progress,
  options: OverloadOptions = {},
): Promise<OverloadResults> {
  const cases: OverloadCase[] = [];
  const skipped: string[] = [];
  const notes: string[] = [];
  const noQuota = cpuGroupUnsupported();
  const results = (): OverloadResults => ({
    mode: config.mode,
    multiples: config.multiples,
    runs: config.runs,
    instanceWarmupSeconds: config.instanceWarmupSeconds,
    warmupSeconds: config.warmupSeconds,
    secondsPerLevel: config.secondsPerLevel,
    maxConnections: config.maxConnections,
    deadlineMs: config.deadlineMs,
    clientAddresses: config.clientAddresses,
    cases,
    skipped,
    notes,
  });
  if (noQuota !== undefined) {
    if (config.mode === 'full') {
      skipped.push(`every case: no CPU quota can be set here (${noQuota})`);
      return results();
    }
    notes.push(`No CPU quotas (${noQuota}): servers and generator shared the cores.`);
  }
  for (const name of options.cases ?? OVERLOAD_CASES) {
    const setup = SETUPS[name];
    if (setup.kind === 'fleet' && options.haproxy === false) {
      skipped.push(`${name}: no haproxy binary`);
      continue;
    }
    const instanceCpus = noQuota === undefined ? config.quotas[setup.kind] : undefined;
    if (setup.kind !== 'postgres') {
      cases.push(
        await measureCase(
          config,
          progress,
          setup,
          { instanceCpus, postgresSeconds: () => undefined },
          undefined,
        ),
      );
      continue;
    }
    if (options.databaseUrl === undefined) {
      skipped.push(`${name}: no PostgreSQL`);
      continue;
    }
    cases.push(
      await measurePostgresCase(config, progress, setup, options, instanceCpus, noQuota, notes),
    );
  }
  return results();
}

async function measurePostgresCase(
  config: OverloadConfig,
  progress: Progress,
  setup: CaseSetup,
  options: OverloadOptions,
  instanceCpus: number | undefined,
  noQuota: string | undefined,
  notes: string[],
): Promise<OverloadCase> {
  const adminUrl = options.databaseUrl as string;
  const database = await createTestDatabase(adminUrl);
  const postmaster =
    options.ownDatabase === true && noQuota === undefined
      ? await postmasterPid(adminUrl)
      : undefined;
  if (postmaster === undefined) {
    notes.push(
      `${setup.name}: PostgreSQL ran without a quota (${noQuota ?? (options.ownDatabase === true ? 'its postmaster was not found' : 'a server of BENCH_DATABASE_URL, not the bench’s own')}).`,
    );
  }
  const quota =
    postmaster === undefined
      ? undefined
      : await quotaPostgres(postmaster, config.quotas.postmaster);
  try {
    return await measureCase(
      config,
      progress,
      setup,
      { instanceCpus, postgresSeconds: () => quota?.group.usageSeconds() },
      database.url,
    );
  } finally {
    await quota?.release();
    await database.drop();
  }
}
