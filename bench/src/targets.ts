import type {
  OverloadCase,
  OverloadLevel,
  OverloadResults,
  OverloadRun,
} from './measurements/overload.js';
import type {
  AdapterOverhead,
  DocsAssetCase,
  DocsAssets,
  PageCostRow,
  PostgresRow,
  Ratios,
  Results,
  Spread,
  SqliteResults,
  SqliteRow,
  Target,
  WireRow,
} from './results.js';
import { median } from './stats.js';

/** The targets, checked against one run's figures. */
export const LIMITS = {
  /**
   * Ours / the hand-written side's throughput, list and create alike: node:http and Fastify
   * against peers of the whole contract, Express and Hapi against their two bare routes. `raw`
   * has no target: the raw server skips the contract, so the row reports what it costs.
   */
  throughput: { express: 1, hapi: 1, node: 0.97, fastify: 0.97 },
  p99: 1.2,
  /**
   * First rounds within this share of the later ones, the median over every side of every row:
   * the warm-up is long enough (see roundRatios for why the median).
   */
  steadyState: 0.95,
  memoryPageGrowth: 1.5,
  postgresPageGrowth: 2,
  /**
   * `@petstore/node` create over memory: server CPU per request, ours / the hand-written
   * node:http peer's (the body read and parse on Node without the portable reader's cost).
   */
  nodeCreateCpu: 1.03,
  /**
   * PostgreSQL, ours / the hand-written node:http + pg peer: list, create and keyed create,
   * straight to PostgreSQL and through PgBouncer in transaction mode.
   */
  postgresThroughput: 0.95,
  /**
   * Straight to PostgreSQL, ours / the peer's, per request: PostgreSQL's CPU (the primary is the
   * one part that does not scale out), the bytes sent to it, and the server's own (Node) CPU.
   */
  postgresCpu: 1.05,
  postgresBytes: 1.1,
  postgresNodeCpu: 1.15,
  /** Keyed creates/s, ours / the peer's, with PostgreSQL held to a fixed CPU quota. */
  writeCeiling: 0.95,
  /**
   * SQLite (section 7), ours / the bare node:http route with the same statements on node:sqlite,
   * list, create and keyed create alike (the bare keyed create stores the same claim).
   */
  sqliteThroughput: 0.9,
  /** A page at the largest store over the smallest: SQLite is a database as PostgreSQL is. */
  sqlitePageGrowth: 2,
  bytesPerPet: 256,
  /** Server CPU µs per request for the API reference's script: br above the floor, or a 304. */
  docsAssetMicros: 100,
} as const;

const atLeast = (name: string, actual: number, limit: number): Target => ({
  name,
  target: `>= ${limit.toFixed(2)}`,
  actual,
  pass: actual >= limit,
});
const atMost = (name: string, actual: number, limit: number): Target => ({
  name,
  target: `<= ${Number.isInteger(limit) ? limit : limit.toFixed(2)}`,
  actual,
  pass: actual <= limit,
});

/** A ratio of rounds: holds on its median, shows min and max, noisy when its control is. */
const ofRounds = (target: Target, spread: Spread, noisy: boolean | undefined): Target => ({
  ...target,
  min: spread.min,
  max: spread.max,
  ...(noisy === true ? { noisy: true } : {}),
});

/** Throughput ours/hand-written at least `limit`, and p99 at most LIMITS.p99, on their medians. */
function ratioTargets(label: string, row: Ratios, limit: number): Target[] {
  return [
    ofRounds(
      atLeast(`${label}: throughput ours/hand-written`, row.throughput.median, limit),
      row.throughput,
      row.control?.noisy.throughput,
    ),
    ofRounds(
      atMost(`${label}: p99 ours/hand-written`, row.p99.median, LIMITS.p99),
      row.p99,
      row.control?.noisy.p99,
    ),
  ];
}

/** A per-round ratio of CPU per request at most `limit`, where /proc gave one. */
const cpuTarget = (name: string, spread: Spread | null, limit: number): Target[] =>
  spread === null ? [] : [ofRounds(atMost(name, spread.median, limit), spread, undefined)];

export function adapterTargets(row: AdapterOverhead): Target[] {
  if (row.framework === 'raw') return [];
  const label = `${row.framework} ${row.operation}`;
  return [
    ...ratioTargets(label, row, LIMITS.throughput[row.framework]),
    ...(row.framework === 'node' && row.operation === 'create'
      ? cpuTarget(
          `${label}: server CPU per request ours/hand-written`,
          row.serverCpu,
          LIMITS.nodeCreateCpu,
        )
      : []),
  ];
}

export const OVERLOAD_LIMITS = {
  /** Goodput at the highest load (3x) over the capacity. */
  goodput: 0.9,
  /** p99 of every answer (2xx and 503) at the highest load over the same at the lowest (0.5x). */
  p99Growth: 5,
  /** Arrivals at the highest load neither answered nor refused: timed out, dropped, errors. */
  unanswered: 0.01,
  /** Peak heapUsed at the highest load over the peak at the lowest (0.5x). */
  heapGrowth: 2,
  /** Arrivals the generator handled (sent or dropped) per second of its window, over the offered rate. */
  generator: 0.95,
} as const;

const shedding = (run: OverloadRun): string => (run.loadShedding === false ? 'off' : 'on');

const levelAt = (run: OverloadRun, pick: 'lowest' | 'highest'): OverloadLevel | undefined => {
  const sorted = [...run.levels].sort((a, b) => a.multiple - b.multiple);
  return pick === 'lowest' ? sorted[0] : sorted.at(-1);
};

/**
 * The goals for one run of one case, checked at its highest load (3x) against its
 * lowest (0.5x):
 * - goodput at 3x at least 90% of the capacity;
 * - the p99 of every answer (2xx and 503 together) at 3x at most 5x the same at 0.5x;
 * - the excess refused, not queued: arrivals timed out, dropped at the connection cap or
 *   failed at most 1% of those at 3x;
 * - the heap bounded: the peak heapUsed during 3x (sampled every 50 ms) at most twice the peak
 *   at 0.5x, where nothing waits. A server that refuses the excess holds about what serving
 *   takes; one that queues it holds every waiting request besides (up to the generator's cap
 *   on requests in flight; with no cap, without bound). Twice leaves room for the garbage
 *   collector's timing, which moves a peak by several MiB;
 * - and the generator kept up at 3x (what it sent or dropped per second of its window at least
 *   95% of the offered rate): otherwise the server was not offered 3x and the rest means less.
 */
export function overloadGoals(item: OverloadCase, run: OverloadRun): Target[] {
  const label = `overload ${item.name}, shedding ${shedding(run)}`;
  const low = levelAt(run, 'lowest');
  const high = levelAt(run, 'highest');
  const nan = Number.NaN;
  const x = high === undefined ? '' : ` at ${high.multiple}x`;
  const arrivals = high?.load.scheduled ?? 0;
  const unanswered =
    high === undefined ? nan : high.load.timedOut + high.load.dropped + high.load.errors;
  const handledRps =
    high === undefined
      ? nan
      : (high.load.sent + high.load.dropped) / high.load.sendWindowSeconds / high.load.offeredRps;
  const peak = (level: OverloadLevel | undefined) => level?.server?.heapUsedMaxBytes ?? nan;
  return [
    atLeast(`${label}: goodput${x} / capacity`, high?.goodputRatio ?? nan, OVERLOAD_LIMITS.goodput),
    atMost(
      `${label}: p99 of answers (2xx and 503)${x} / at ${low?.multiple ?? '?'}x`,
      (high?.load.latencyAnswered.p99Ms ?? nan) / (low?.load.latencyAnswered.p99Ms ?? nan),
      OVERLOAD_LIMITS.p99Growth,
    ),
    atMost(
      `${label}: (timed out + dropped + errors) / arrivals${x}`,
      arrivals === 0 ? nan : unanswered / arrivals,
      OVERLOAD_LIMITS.unanswered,
    ),
    atMost(
      `${label}: peak heap${x} / at ${low?.multiple ?? '?'}x`,
      peak(high) / peak(low),
      OVERLOAD_LIMITS.heapGrowth,
    ),
    atLeast(
      `${label}: generator kept up${x} (handled / offered)`,
      handledRps,
      OVERLOAD_LIMITS.generator,
    ),
  ];
}

/**
 * The target rows: the runs with the core's load shedding on (what it is for). The runs with it
 * off are the reference, shown with the same goals in the markdown but not targets.
 */
export function overloadTargets(results: OverloadResults): Target[] {
  return results.cases.flatMap((item) =>
    item.runs
      .filter((run) => run.loadShedding !== false)
      .flatMap((run) => overloadGoals(item, run)),
  );
}

/** A target that counts against the run: failed on its median, and not noisy. */
export const failing = (target: Target): boolean => !target.pass && target.noisy !== true;

/**
 * For every side (bare and ours) of every row: round `round` (0-based) over the median of that
 * side's other rounds. For round 0 the others are the later rounds, the steady-state check;
 * the other rounds give the same figure as a control. The median over the sides is what the
 * target reads: a warm-up too short makes first rounds slow on most sides, whereas the
 * machine's noise (up to 30% on one run here) makes the slowest side of any round read as low
 * as a cold start would (0.74 for round 1 and 0.75 for round 2 in one run).
 */
export function roundRatios(rows: readonly AdapterOverhead[], round: number): number[] {
  return rows.flatMap((row) =>
    [row.bare.rps, row.ours.rps].flatMap((rps) => {
      const own = rps[round];
      const others = rps.filter((_, index) => index !== round);
      return own === undefined || others.length === 0 ? [] : [own / median(others)];
    }),
  );
}

/** Round 1 / the later rounds, the median over every side of every row (1 with no later round). */
export function steadyStateRatio(rows: readonly AdapterOverhead[]): number {
  const ratios = roundRatios(rows, 0);
  return ratios.length === 0 ? 1 : median(ratios);
}

export function postgresTargets(row: PostgresRow): Target[] {
  const label = `postgres ${row.path} ${row.workload}`;
  return [
    ...ratioTargets(label, row, LIMITS.postgresThroughput),
    ...(row.path === 'direct'
      ? [
          ...cpuTarget(
            `${label}: PostgreSQL CPU per request ours/hand-written`,
            row.postgresCpu,
            LIMITS.postgresCpu,
          ),
          ...cpuTarget(
            `${label}: Node CPU per request ours/hand-written`,
            row.serverCpu,
            LIMITS.postgresNodeCpu,
          ),
        ]
      : []),
  ];
}

/** Bytes sent to PostgreSQL per request, ours / the peer's, for each workload of the wire count. */
export function wireTargets(rows: readonly WireRow[]): Target[] {
  return rows
    .filter((row) => row.side === 'ours')
    .flatMap((ours) => {
      const peer = rows.find((row) => row.side === 'peer' && row.workload === ours.workload);
      return peer === undefined
        ? []
        : [
            atMost(
              `postgres direct ${ours.workload}: bytes to PostgreSQL per request ours/hand-written`,
              ours.bytesToDatabase / peer.bytesToDatabase,
              LIMITS.postgresBytes,
            ),
          ];
    });
}

/** The share of its quota PostgreSQL must use on both sides for the ceiling to be its ceiling. */
export const SATURATED = 0.9;

/**
 * Keyed creates/s under PostgreSQL's CPU quota, ours / the peer's: noisy with its control, and
 * when PostgreSQL did not use its quota on a side (a busy machine starved the servers or the
 * load generator, so that side read below the ceiling).
 */
export function writeCeilingTargets(ceiling: Results['writeCeiling']): Target[] {
  if (!('rounds' in ceiling)) return [];
  const { bare, ours } = ceiling.quotaUsed;
  const unsaturated = [bare, ours].some((share) => share !== null && share < SATURATED);
  return [
    ofRounds(
      atLeast(
        `postgres write ceiling (${ceiling.cpus} CPU): keyed creates/s ours/hand-written`,
        ceiling.throughput.median,
        LIMITS.writeCeiling,
      ),
      ceiling.throughput,
      ceiling.control?.noisy.throughput === true || unsaturated,
    ),
  ];
}

/** Section 4's targets: every row's, the wire count's and the write ceiling's. */
export const postgresSectionTargets = (
  postgres: Results['postgres'],
  ceiling: Results['writeCeiling'],
): Target[] => [
  ...('rows' in postgres
    ? [...postgres.rows.flatMap(postgresTargets), ...wireTargets(postgres.wire)]
    : []),
  ...writeCeilingTargets(ceiling),
];

export function pageTargets(row: PageCostRow, largest: number, smallest: number): Target[] {
  const limit =
    row.storage === 'memory'
      ? LIMITS.memoryPageGrowth
      : row.storage === 'sqlite'
        ? LIMITS.sqlitePageGrowth
        : LIMITS.postgresPageGrowth;
  const label = `${row.storage} ${row.variant}: page at ${largest.toLocaleString('en')} / at ${smallest.toLocaleString('en')}`;
  return [
    atMost(`${label} (handle)`, row.handleRatio, limit),
    atMost(`${label} (storage alone)`, row.storageRatio, limit),
  ];
}

export function sqliteTargets(row: SqliteRow): Target[] {
  return ratioTargets(`sqlite ${row.workload}`, row, LIMITS.sqliteThroughput);
}

/** `--only sqlite`: the SQLite page rows and section 7. */
export function sqliteOnlyTargets(results: Omit<SqliteResults, 'targets'>): Target[] {
  const sizes = results.pageCost.sizes;
  return [
    ...results.pageCost.rows.flatMap((row) => pageTargets(row, sizes.at(-1) ?? 0, sizes[0] ?? 0)),
    ...results.sqlite.rows.flatMap(sqliteTargets),
  ];
}

/**
 * The brotli answer: server CPU per request above the floor (the same bytes written by a route
 * with no logic), which is what sending 0.8 MB costs any server on loopback, where the kernel
 * work of both ends is charged to the server. The 304: server CPU per request, whole.
 */
export function docsAssetTargets({ cases }: DocsAssets): Target[] {
  const cpu = (key: DocsAssetCase['key']) =>
    cases.find((row) => row.key === key)?.medianServerCpuMicros ?? Number.NaN;
  return [
    atMost(
      'docs asset br: server CPU µs per request above the floor (same bytes, bare route)',
      cpu('br') - cpu('floor'),
      LIMITS.docsAssetMicros,
    ),
    atMost('docs asset 304: server CPU µs per request', cpu('304'), LIMITS.docsAssetMicros),
  ];
}

export function allTargets(results: Omit<Results, 'targets'>): Target[] {
  const sizes = results.pageCost.sizes;
  return [
    ...results.adapterOverhead.flatMap(adapterTargets),
    atLeast(
      'steady state: first round / later rounds (median of sides)',
      steadyStateRatio(results.adapterOverhead),
      LIMITS.steadyState,
    ),
    ...results.pageCost.rows.flatMap((row) => pageTargets(row, sizes.at(-1) ?? 0, sizes[0] ?? 0)),
    ...postgresSectionTargets(results.postgres, results.writeCeiling),
    ...results.sqlite.rows.flatMap(sqliteTargets),
    atMost('memory storage: bytes per pet', results.memory.bytesPerPet, LIMITS.bytesPerPet),
    ...docsAssetTargets(results.docsAssets),
    ...overloadTargets(results.overload),
  ];
}
