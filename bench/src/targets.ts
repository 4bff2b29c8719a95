import type {
  OverloadCase,
  OverloadCaseName,
  OverloadModeRun,
  OverloadResults,
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
  /** Goodput at the highest load (3x) over the capacity: the fleet and PostgreSQL, defaults. */
  goodput: 0.9,
  /** p99 of the 2xx answers at the highest load, ms: the fleet and PostgreSQL, defaults. */
  p99Ms2xx: 1000,
  /**
   * Live heap at the highest load over that at the lowest (0.5x), every case: heapUsed after a
   * full collection while the load runs, which holds what waits (see ServerProbe.liveHeapBytes).
   */
  heapGrowth: 1.5,
} as const;

/** The cases whose goodput, p99 and refusals are targets (issue 40): where refusing is cheap. */
const GRACEFUL: readonly OverloadCaseName[] = ['fleet memory list', 'postgres keyed create'];

const levelAt = (run: OverloadModeRun, pick: 'lowest' | 'highest') => {
  const sorted = [...run.levels].sort((a, b) => a.multiple - b.multiple);
  return pick === 'lowest' ? sorted[0] : sorted.at(-1);
};

/**
 * The goals of one mode of one case, on the medians of its runs, at its highest load (3x)
 * against its lowest (0.5x):
 * - where refusing is cheap (a fleet behind HAProxy; an instance whose work is PostgreSQL's):
 *   goodput at least 90% of the capacity, the p99 of 2xx at most 1 s, every refusal the API's
 *   JSON 503 with Retry-After (no other answer), no request unanswered or reset (timed out,
 *   cut, or dropped at the generator's cap);
 * - every case: the heap bounded, the live heap under load at most 1.5x that at 0.5x, where
 *   nothing waits;
 * - and the generator kept up at every level (sent on time, read on time), or the figures do not
 *   say what the server did.
 */
export function overloadGoals(item: OverloadCase, run: OverloadModeRun): Target[] {
  const label = `overload ${item.name}, ${run.mode}`;
  const low = levelAt(run, 'lowest');
  const high = levelAt(run, 'highest');
  const nan = Number.NaN;
  const x = high === undefined ? '' : ` at ${high.multiple}x`;
  const goals: Target[] = [];
  if (GRACEFUL.includes(item.name)) {
    goals.push(
      atLeast(
        `${label}: goodput${x} / capacity`,
        high?.goodputRatio ?? nan,
        OVERLOAD_LIMITS.goodput,
      ),
      atMost(`${label}: p99 of 2xx${x} (ms)`, high?.p99Ms2xx ?? nan, OVERLOAD_LIMITS.p99Ms2xx),
      atMost(
        `${label}: answers${x} other than 2xx or the JSON 503 with Retry-After`,
        high?.badAnswers ?? nan,
        0,
      ),
      atMost(`${label}: requests${x} unanswered or reset`, high?.unanswered ?? nan, 0),
    );
  }
  goals.push(
    atMost(
      `${label}: live heap under load${x} / at ${low?.multiple ?? '?'}x`,
      (high?.liveHeapBytes ?? nan) / (low?.liveHeapBytes ?? nan),
      OVERLOAD_LIMITS.heapGrowth,
    ),
    atMost(
      `${label}: levels where the generator fell behind (sent or read late)`,
      run.levels.filter((level) => !level.generator.keptUp).length,
      0,
    ),
  );
  return goals;
}

/** The target rows: the service's defaults (what users get); tuned runs are the reference. */
export function overloadTargets(results: OverloadResults): Target[] {
  return results.cases.flatMap((item) =>
    item.modes.filter((run) => run.mode === 'defaults').flatMap((run) => overloadGoals(item, run)),
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
