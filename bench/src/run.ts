/**
 * `pnpm bench`: every measurement of the bench, side by side in one run, with
 * progress on stderr; writes bench/RESULTS.md and bench/results.json.
 * `--smoke`: the same code paths in seconds, written to a temp dir (or `--out`).
 * `--no-postgres`: skip the PostgreSQL parts (said so in the results).
 * `--only fastify[,node...]`: just the adapter rows of those frameworks, written
 *   to a temp dir (or `--out`); the committed results stay as they are.
 * `--only sqlite`: just section 7 (SQLite against a bare node:sqlite route) and the SQLite
 *   rows of section 3, likewise.
 * `--only postgres`: just section 4 (PostgreSQL against the pg peer) and the write ceiling,
 *   likewise.
 * `--strict`: exit 1 when a target does not hold (a full run only).
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HAPROXY } from './balancer.js';
import {
  adapterCharts,
  type Chart,
  databaseCharts,
  overloadCharts,
  pageCostChart,
  writeCeilingChart,
  writeCharts,
} from './charts.js';
import { FRAMEWORKS, FULL, plannedSeconds, SMOKE } from './config.js';
import { canPin, LOAD_CPU, pinSelf, SERVER_CPU } from './cpu.js';
import { measureAdapterOverhead } from './measurements/adapter-overhead.js';
import { measureCoreAlone } from './measurements/core-alone.js';
import { docsAssetsSeconds, measureDocsAssets } from './measurements/docs-assets.js';
import { measureMemory } from './measurements/memory.js';
import {
  measureOverload,
  overloadConfig,
  overloadPlannedSeconds,
} from './measurements/overload.js';
import {
  measurePageCostMemory,
  measurePageCostPostgres,
  measurePageCostSqlite,
} from './measurements/page-cost.js';
import { measurePostgresVsBare } from './measurements/postgres-vs-bare.js';
import { measureSqliteVsBare } from './measurements/sqlite-vs-bare.js';
import { measureWriteCeiling } from './measurements/write-ceiling.js';
import { type BenchDatabase, startDatabase } from './postgres.js';
import { dropSchemas } from './postgres-seed.js';
import { Progress } from './progress.js';
import {
  type ChartLines,
  renderAdapterMarkdown,
  renderJson,
  renderMarkdown,
  renderOverloadOnlyMarkdown,
  renderPostgresMarkdown,
  renderSqliteMarkdown,
  targetCount,
} from './report.js';
import type {
  AdapterResults,
  Framework,
  Machine,
  OverloadOnlyResults,
  PageCostRow,
  PostgresResults,
  Results,
  SqliteResults,
} from './results.js';
import { QUIET_LOAD, waitForQuiet } from './settle.js';
import {
  adapterTargets,
  allTargets,
  failing,
  overloadTargets,
  postgresSectionTargets,
  sqliteOnlyTargets,
} from './targets.js';

// `pnpm bench -- --strict` hands the script a literal `--` before the options.
const argv = process.argv.slice(2);
const dashes = argv.indexOf('--');
const { values: flags } = parseArgs({
  args: dashes === -1 ? argv : [...argv.slice(0, dashes), ...argv.slice(dashes + 1)],
  options: {
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
    'no-postgres': { type: 'boolean', default: false },
    strict: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
  },
});
const config = flags.smoke ? SMOKE : FULL;

/**
 * `--only express,node` or `--only express --only node`: adapter rows; `--only sqlite` or
 * `--only postgres`: that database's parts (alone); `--only overload`: section 8 (alone);
 * undefined: the whole run.
 */
function onlyParts(
  values: readonly string[] | undefined,
): Framework[] | 'sqlite' | 'postgres' | 'overload' | undefined {
  if (values === undefined) return undefined;
  const names = values.flatMap((value) => value.split(',')).map((name) => name.trim());
  const known: readonly string[] = FRAMEWORKS;
  const unknown = names.filter((name) => !known.includes(name));
  const alone = ['sqlite', 'postgres', 'overload'] as const;
  const single = names.length === 1 ? alone.find((name) => name === names[0]) : undefined;
  if (single !== undefined) return single;
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(
      `--only takes ${FRAMEWORKS.join(', ')}; or sqlite, postgres or overload alone; got ${values.join(' ')}`,
    );
  }
  return FRAMEWORKS.filter((framework) => names.includes(framework));
}
const only = onlyParts(flags.only);
const usePostgres = !flags['no-postgres'];
const progress = new Progress();

// Set once the machine has settled (see waitForQuiet), before the first measurement.
let loadAtStart = loadavg()[0] ?? 0;

// `pnpm bench` builds first and measures the packages' `dist`, as users install them; the smoke
// run (and a run under `--conditions=@petstore/source`) reads the TypeScript sources through
// tsx, whose transform adds work (a name helper per function) that no user's build has.
const measuredCode = process.execArgv.includes('--conditions=@petstore/source')
  ? 'the TypeScript sources, through tsx (not what users run)'
  : "the built packages' dist (what users install)";

// Before pinning, which narrows what availableParallelism() reports.
const coresAtStart = availableParallelism();

function machine(pinned: boolean): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: coresAtStart,
    memoryGiB: totalmem() / 2 ** 30,
    node: process.version,
    platform: `${platform()} ${release()}`,
    date: new Date().toISOString(),
    pinning: pinned
      ? `servers on CPU ${SERVER_CPU}, load generator and in-process measurements on CPU ${LOAD_CPU} (taskset); PostgreSQL unpinned`
      : 'none (taskset or a second core unavailable): servers and load generator share the cores',
    loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
    code: measuredCode,
  };
}

async function outputDir(): Promise<string> {
  if (flags.out !== undefined) {
    await mkdir(flags.out, { recursive: true });
    return flags.out;
  }
  // A smoke run or a partial one never overwrites the committed results.
  if (only !== undefined) return mkdtemp(join(tmpdir(), 'petstore-bench-only-'));
  return flags.smoke
    ? mkdtemp(join(tmpdir(), 'petstore-bench-smoke-'))
    : fileURLToPath(new URL('..', import.meta.url));
}

/** A full run first waits (up to two minutes) for the machine to settle; a smoke run does not. */
async function settle(notes: string[]): Promise<void> {
  if (config.mode === 'full') loadAtStart = await waitForQuiet(progress, 120);
  busyNote(notes);
}

function busyNote(notes: string[]): void {
  if (loadAtStart >= QUIET_LOAD) {
    const warning = `The machine was busy when the run started (1-minute load average ${loadAtStart.toFixed(2)}): other processes skew every figure.`;
    notes.push(warning);
    progress.log(`warning: ${warning}`);
  }
}

/** `--only`: the adapter rows of the chosen frameworks, no PostgreSQL, nothing else. */
async function adapterRowsOnly(frameworks: Framework[]): Promise<number> {
  progress.plan(plannedSeconds(config, frameworks.length).adapterOverhead);
  progress.log(
    `petstore bench (${config.mode}, adapter rows of ${frameworks.join(', ')} only) on ${cpus()[0]?.model.trim()}, ${availableParallelism()} cores, Node ${process.version}`,
  );
  const notes: string[] = [];
  await settle(notes);
  const pinned = pinSelf(LOAD_CPU);
  const adapterOverhead = await measureAdapterOverhead(config, progress, frameworks);
  const results: AdapterResults = {
    mode: config.mode,
    only: frameworks,
    machine: machine(pinned),
    durationSeconds: progress.elapsedSeconds,
    adapterOverhead,
    targets: adapterOverhead.flatMap(adapterTargets),
    notes,
  };
  return finish(results, adapterCharts(adapterOverhead), (charts) =>
    renderAdapterMarkdown(results, charts),
  );
}

/**
 * Writes results.json, the charts and RESULTS.md (also to stdout); the exit code: 1 under
 * `--strict` (a full run) when a target fails on its median and is not noisy.
 */
async function finish(
  results: Results | AdapterResults | SqliteResults | OverloadOnlyResults | PostgresResults,
  charts: readonly Chart[],
  render: (charts: ChartLines) => string,
): Promise<number> {
  const dir = await outputDir();
  await writeFile(join(dir, 'results.json'), renderJson(results));
  const markdown = render(await writeCharts(dir, charts));
  await writeFile(join(dir, 'RESULTS.md'), markdown);
  process.stdout.write(`\n${markdown}\n`);
  progress.log(
    `wrote ${join(dir, 'RESULTS.md')}, results.json and ${charts.length} charts; ${targetCount(results.targets)}`,
  );
  const failed = results.targets.filter(failing);
  return flags.strict && config.mode === 'full' && failed.length > 0 ? 1 : 0;
}

/** `--only sqlite`: the SQLite rows of section 3 and section 7, no PostgreSQL, nothing else. */
async function sqliteOnly(): Promise<number> {
  const plan = plannedSeconds(config);
  progress.plan(plan.pageCost + plan.sqlite);
  progress.log(
    `petstore bench (${config.mode}, SQLite only) on ${cpus()[0]?.model.trim()}, ${availableParallelism()} cores, Node ${process.version}`,
  );
  const notes: string[] = [];
  await settle(notes);
  const pinned = pinSelf(LOAD_CPU);
  const pageRows = await measurePageCostSqlite(config, progress);
  progress.done(plan.pageCost - 2 * config.pages.rounds);
  const sqlite = await measureSqliteVsBare(config, progress);
  const partial = {
    mode: config.mode,
    only: ['sqlite'] as ['sqlite'],
    machine: machine(pinned),
    durationSeconds: progress.elapsedSeconds,
    pageCost: { sizes: [...config.pages.sizes], rows: pageRows },
    sqlite,
    notes,
  };
  const results: SqliteResults = { ...partial, targets: sqliteOnlyTargets(partial) };
  return finish(
    results,
    [pageCostChart(pageRows), ...databaseCharts('sqlite', sqlite.rows)],
    (charts) => renderSqliteMarkdown(results, charts),
  );
}

/** `--only overload`: section 8 alone, with a PostgreSQL of its own unless --no-postgres. */
async function overloadOnly(): Promise<number> {
  const config = overloadConfig(flags.smoke ? 'smoke' : 'full');
  progress.plan((usePostgres ? 3 : 2) * overloadPlannedSeconds(config));
  progress.log(
    `petstore bench (${config.mode}, section 8 only) on ${cpus()[0]?.model.trim()}, ${availableParallelism()} cores, Node ${process.version}`,
  );
  const notes: string[] = [];
  await settle(notes);
  const database = usePostgres ? await startDatabase() : undefined;
  if (database === undefined) notes.push('PostgreSQL measurements skipped (--no-postgres).');
  const pinned = pinSelf(LOAD_CPU);
  try {
    const overload = await measureOverload(config, progress, overloadOptions(database));
    const results: OverloadOnlyResults = {
      mode: config.mode,
      only: ['overload'],
      machine: machine(pinned),
      durationSeconds: progress.elapsedSeconds,
      overload,
      targets: overloadTargets(overload),
      notes,
    };
    return await finish(results, overloadCharts(overload), (charts) =>
      renderOverloadOnlyMarkdown(results, charts),
    );
  } finally {
    await database?.stop();
  }
}

/** What section 8 needs to know of the run: its PostgreSQL (and whose it is), HAProxy. */
const overloadOptions = (database: BenchDatabase | undefined) => ({
  databaseUrl: database?.url,
  ownDatabase: database !== undefined && database.source !== 'BENCH_DATABASE_URL',
  haproxy: HAPROXY !== '',
});
/** `--only postgres`: section 4 and its write ceiling, nothing else. */
async function postgresOnly(): Promise<number> {
  const plan = plannedSeconds(config);
  progress.plan(plan.postgresStart + plan.postgres + plan.writeCeiling);
  progress.log(
    `petstore bench (${config.mode}, PostgreSQL only) on ${cpus()[0]?.model.trim()}, ${availableParallelism()} cores, Node ${process.version}`,
  );
  const notes: string[] = [];
  await settle(notes);
  const database = await startDatabase();
  progress.done(plan.postgresStart);
  progress.log(`PostgreSQL ready (${database.source})`);
  const schemas: string[] = [];
  try {
    const pinned = pinSelf(LOAD_CPU);
    const postgres = await measurePostgresVsBare(config, database, progress, schemas);
    const writeCeiling = await measureWriteCeiling(config, database, progress, schemas);
    const partial = {
      mode: config.mode,
      only: ['postgres'] as ['postgres'],
      machine: machine(pinned),
      durationSeconds: progress.elapsedSeconds,
      postgres,
      writeCeiling,
      notes,
    };
    const results: PostgresResults = {
      ...partial,
      targets: postgresSectionTargets(postgres, writeCeiling),
    };
    return await finish(results, postgresCharts(postgres, writeCeiling), (charts) =>
      renderPostgresMarkdown(results, charts),
    );
  } finally {
    await closeDatabase(database, schemas);
  }
}

/** Section 4's charts: its rows, and the write ceiling when it ran. */
const postgresCharts = (
  postgres: Results['postgres'],
  ceiling: Results['writeCeiling'],
): Chart[] => [
  ...('rows' in postgres ? databaseCharts('postgres', postgres.rows) : []),
  ...('rounds' in ceiling ? [writeCeilingChart(ceiling)] : []),
];

/** A shared server keeps nothing of ours; an embedded one goes away whole. */
async function closeDatabase(database: BenchDatabase, schemas: readonly string[]): Promise<void> {
  if (database.source === 'BENCH_DATABASE_URL')
    await dropSchemas(database.url, schemas).catch(() => undefined);
  await database.stop();
}

async function main(): Promise<number> {
  const plan = plannedSeconds(config);
  progress.plan(
    plan.adapterOverhead + plan.coreAlone + 2 * plan.pageCost + plan.sqlite + plan.memory,
  );
  progress.plan(docsAssetsSeconds(config));
  const overloadCases = usePostgres ? 3 : 2;
  progress.plan(overloadCases * overloadPlannedSeconds(overloadConfig(config.mode)));
  if (usePostgres)
    progress.plan(plan.postgresStart + plan.pageCost + plan.postgres + plan.writeCeiling);
  progress.log(
    `petstore bench (${config.mode}) on ${cpus()[0]?.model.trim()}, ${availableParallelism()} cores, Node ${process.version}`,
  );

  const notes: string[] = [];
  await settle(notes);
  let database: BenchDatabase | undefined;
  const schemas: string[] = [];
  if (usePostgres) {
    progress.log('starting PostgreSQL');
    database = await startDatabase();
    progress.done(plan.postgresStart);
    progress.log(`PostgreSQL ready (${database.source})`);
  } else {
    notes.push('PostgreSQL measurements skipped (--no-postgres).');
  }
  // After PostgreSQL started, so its processes keep both cores.
  const pinned = pinSelf(LOAD_CPU);
  if (!canPin)
    notes.push(
      'No CPU pinning on this machine: server and load generator competed for the same cores.',
    );
  notes.push(
    'Both Express apps disable ETag and X-Powered-By, so the bare route does not pay for hashing each body; ' +
      "the bare Hapi routes use Hapi's own response path (JSON serialisation, its default headers), as a hand-written route would.",
  );

  try {
    const adapterOverhead = await measureAdapterOverhead(config, progress);
    const coreAlone = await measureCoreAlone(config, progress);
    const pageRows: PageCostRow[] = await measurePageCostMemory(config, progress);
    progress.done(plan.pageCost - 2 * config.pages.rounds);
    pageRows.push(...(await measurePageCostSqlite(config, progress)));
    progress.done(plan.pageCost - 2 * config.pages.rounds);
    if (database !== undefined) {
      pageRows.push(...(await measurePageCostPostgres(config, database.url, progress, schemas)));
      progress.done(plan.pageCost - 3 * config.pages.rounds);
    }
    const skipped = { skipped: 'PostgreSQL measurements skipped (--no-postgres).' };
    const postgres =
      database === undefined
        ? skipped
        : await measurePostgresVsBare(config, database, progress, schemas);
    const writeCeiling =
      database === undefined
        ? skipped
        : await measureWriteCeiling(config, database, progress, schemas);
    const sqlite = await measureSqliteVsBare(config, progress);
    const memory = await measureMemory(config, progress);
    progress.done(plan.memory);
    const docsAssets = await measureDocsAssets(config, progress);
    const overload = await measureOverload(
      overloadConfig(config.mode),
      progress,
      overloadOptions(database),
    );

    const partial = {
      mode: config.mode,
      machine: machine(pinned),
      durationSeconds: progress.elapsedSeconds,
      adapterOverhead,
      coreAlone,
      pageCost: { sizes: [...config.pages.sizes], rows: pageRows },
      postgres,
      writeCeiling,
      sqlite,
      memory,
      docsAssets,
      overload,
      notes,
    };
    const results: Results = { ...partial, targets: allTargets(partial) };
    const charts = [
      ...adapterCharts(adapterOverhead),
      pageCostChart(pageRows),
      ...postgresCharts(postgres, writeCeiling),
      ...databaseCharts('sqlite', sqlite.rows),
      ...overloadCharts(overload),
    ];
    return await finish(results, charts, (lines) => renderMarkdown(results, lines));
  } finally {
    if (database !== undefined) await closeDatabase(database, schemas);
  }
}

const chosen = (): Promise<number> => {
  if (only === undefined) return main();
  if (only === 'sqlite') return sqliteOnly();
  if (only === 'postgres') return postgresOnly();
  if (only === 'overload') return overloadOnly();
  return adapterRowsOnly(only);
};

chosen().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
