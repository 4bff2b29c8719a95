import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, inject, test } from 'vitest';
import { cpuGroupUnsupported } from '../src/cgroup.js';
import type { Results } from '../src/results.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** From tools/test-postgres/src/global-setup.ts: a PostgreSQL on 127.0.0.1. */
    postgresUrl: string;
  }
}

const benchDir = fileURLToPath(new URL('..', import.meta.url));
const committedResults = join(benchDir, 'RESULTS.md');
let outDir: string | undefined;

let onlyDir: string | undefined;
let sqliteDir: string | undefined;
let overloadDir: string | undefined;
let postgresDir: string | undefined;
// The write ceiling needs a CPU quota (root, cgroup v1 cpu): where there is none it is skipped
// and says why.
const noQuota = cpuGroupUnsupported();

afterAll(async () => {
  for (const dir of [outDir, onlyDir, sqliteDir, overloadDir, postgresDir]) {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
});

const mtime = (path: string) =>
  stat(path).then(
    (s) => s.mtimeMs,
    () => undefined,
  );

/** Section 8 as a smoke run leaves it: every case measured, or skipped for a missing tool. */
function expectOverload(overload: Results['overload']): void {
  const measured = overload.cases.map((item) => item.name);
  const skipped = overload.skipped.join('; ');
  expect([...measured, skipped]).toEqual([
    ...(skipped.includes('fleet memory list: no haproxy') ? [] : ['fleet memory list']),
    'postgres keyed create',
    'alone memory list',
    skipped,
  ]);
  for (const item of overload.cases) {
    expect(item.capacity.rps).toBeGreaterThan(0);
    expect(item.modes.map((run) => run.mode)).toEqual(['defaults', 'tuned']);
    for (const run of item.modes) {
      expect(run.levels.map((level) => level.multiple)).toEqual(overload.multiples);
      for (const level of run.levels) expect(level.goodputRatio).toBeGreaterThan(0);
      // No full collection while a level is measured (it throws optimised code away): the live
      // heap comes from each level's own phase afterwards.
      for (const level of run.runs.flat()) {
        expect(level.server?.liveHeapBytes).toBeNull();
        expect(level.liveHeapBytes).toBeGreaterThan(0);
      }
    }
  }
  const alone = overload.cases.find((item) => item.name === 'alone memory list');
  expect(alone?.refusalCost?.rows.map((row) => row.key)).toEqual([
    'request',
    'shed',
    'shed-unlogged',
    'shed-new-connection',
    'accept',
  ]);
  for (const row of alone?.refusalCost?.rows ?? []) expect(row.answers).toBeGreaterThan(0);
}

/** The defaults' goals: six where refusing is cheap (the fleet, PostgreSQL), two alone. */
const overloadTargetCount = (overload: Results['overload']): number =>
  overload.cases.reduce((sum, item) => sum + (item.name === 'alone memory list' ? 2 : 6), 0);

interface Exit {
  readonly code: number | null;
  readonly output: string;
}

/** `pnpm bench:smoke`, as CI runs it, bounded in time; only this child's PID is ever killed. */
function runSmoke(out: string, extra: readonly string[] = []): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=@petstore/source',
        '--import',
        'tsx',
        'src/run.ts',
        '--smoke',
        '--out',
        out,
        ...extra,
      ],
      {
        cwd: benchDir,
        env: { ...process.env, BENCH_DATABASE_URL: inject('postgresUrl') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const collect = (chunk: Buffer) => {
      if (output.length < 200_000) output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), 230_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

test('the smoke bench runs every measurement and leaves the committed results alone', async () => {
  outDir = await mkdtemp(join(tmpdir(), 'petstore-bench-test-'));
  const committedBefore = await mtime(committedResults);
  const { code, output } = await runSmoke(outDir);
  expect(code, output).toBe(0);

  const results = JSON.parse(await readFile(join(outDir, 'results.json'), 'utf8')) as Results;
  expect(results.mode).toBe('smoke');
  // Every server in the same rounds, list then create.
  expect(results.adapterOverhead.map((row) => `${row.framework} ${row.operation}`)).toEqual(
    ['list', 'create'].flatMap((operation) =>
      ['express', 'hapi', 'node', 'fastify', 'raw'].map((framework) => `${framework} ${operation}`),
    ),
  );
  for (const row of results.adapterOverhead) {
    expect(row.bare.medianRps).toBeGreaterThan(0);
    expect(row.ours.medianRps).toBeGreaterThan(0);
    expect(row.ours.medianP99Ms).toBeGreaterThan(0);
    // Every ratio is a median of paired rounds, beside the section's control.
    expect(row.throughput.rounds).toHaveLength(row.bare.rps.length);
    expect(row.control?.throughput.rounds).toHaveLength(row.bare.rps.length);
  }
  expect(results.coreAlone.map((row) => row.operation)).toEqual(['list', 'create']);
  expect(results.coreAlone.every((row) => row.medianCallsPerSecond > 0)).toBe(true);
  expect(results.coreAlone.every((row) => row.baselineMicrosPerCall > 0 && row.ratio > 0)).toBe(
    true,
  );
  // Four pages (with and without filter, first and deep) for each storage, at every size.
  expect(results.pageCost.rows.map((row) => row.storage)).toEqual([
    ...Array(4).fill('memory'),
    ...Array(4).fill('sqlite'),
    ...Array(4).fill('postgres'),
  ]);
  for (const row of results.pageCost.rows) {
    for (const size of results.pageCost.sizes) {
      expect(row.handleMs[String(size)]).toBeGreaterThan(0);
      expect(row.storageMs[String(size)]).toBeGreaterThan(0);
    }
  }
  const pg = results.postgres;
  if (!('rows' in pg)) throw new Error(`PostgreSQL skipped: ${pg.skipped}`);
  // Direct and through PgBouncer (the suite has a pgbouncer binary, or says why not).
  const paths = pg.pgbouncerMissing === undefined ? ['direct', 'pgbouncer'] : ['direct'];
  expect(pg.rows.map((row) => `${row.path} ${row.workload}`)).toEqual(
    paths.flatMap((path) => [`${path} create`, `${path} keyed create`, `${path} list`]),
  );
  for (const row of pg.rows) {
    expect(row.bare.medianRps).toBeGreaterThan(0);
    expect(row.ours.medianRps).toBeGreaterThan(0);
    expect(row.control?.what).toBe('the pg peer, twice');
  }
  // What each side says to PostgreSQL per request, both sides of every workload.
  expect(pg.wire.map((row) => `${row.workload} ${row.side}`)).toEqual(
    ['create', 'keyed create', 'list'].flatMap((workload) => [
      `${workload} peer`,
      `${workload} ours`,
    ]),
  );
  for (const row of pg.wire) expect(row.roundTrips).toBeGreaterThan(0);
  expectWriteCeiling(results.writeCeiling);
  expect(results.sqlite.rows.map((row) => row.workload)).toEqual([
    'list',
    'create',
    'keyed create',
  ]);
  for (const row of results.sqlite.rows) {
    expect(row.bare.medianRps).toBeGreaterThan(0);
    expect(row.ours.medianRps).toBeGreaterThan(0);
    // Every run read each server's event-loop delay.
    expect([...row.eventLoopP99Ms.bare, ...row.eventLoopP99Ms.ours].every((v) => v !== null)).toBe(
      true,
    );
  }
  expect(results.memory.bytesPerPet).toBeGreaterThan(0);
  expect(results.docsAssets.cases.map((row) => row.key)).toEqual(['old', 'br', 'floor', '304']);
  for (const row of results.docsAssets.cases) expect(row.medianRps).toBeGreaterThan(0);
  // Past capacity: every case (the fleet where HAProxy is installed), defaults and tuned, at
  // every offered load, and the alone case's refusal costs.
  expectOverload(results.overload);
  // Every target appears with a verdict, though a smoke run enforces none.
  // Adapter rows 2 each but raw (reported, no target), node create's CPU, the steady-state
  // check, pages 2 each, PostgreSQL 2 per workload per path and 2 CPU ratios per direct
  // workload, bytes per workload, the write ceiling's, SQLite 2 per workload, memory, docs
  // asset 2, and the overload goals of the defaults (6 for the fleet and PostgreSQL, 2 alone).
  expect(results.targets.length).toBe(
    (results.adapterOverhead.length - 2) * 2 +
      1 +
      1 +
      results.pageCost.rows.length * 2 +
      paths.length * 3 * 2 +
      3 * 2 +
      3 +
      (noQuota === undefined ? 1 : 0) +
      3 * 2 +
      1 +
      2 +
      overloadTargetCount(results.overload),
  );
  const markdown = await readFile(join(outDir, 'RESULTS.md'), 'utf8');
  expect(markdown).toContain('Smoke run');
  // The charts are drawn from these results, and RESULTS.md shows each one.
  const charts = await readdir(join(outDir, 'charts'));
  expect(charts.sort()).toEqual([
    'memory-latency.svg',
    'memory-throughput.svg',
    'overload.svg',
    'page-cost.svg',
    'postgres-latency.svg',
    'postgres-throughput.svg',
    'sqlite-latency.svg',
    'sqlite-throughput.svg',
    ...(noQuota === undefined ? ['write-ceiling.svg'] : []),
  ]);
  for (const chart of charts) {
    expect(markdown).toContain(`(charts/${chart})`);
    expect(await readFile(join(outDir, 'charts', chart), 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>$/);
  }
  expect(await mtime(committedResults)).toBe(committedBefore);
}, 250_000);

test('--only runs just the adapter rows of the frameworks named', async () => {
  onlyDir = await mkdtemp(join(tmpdir(), 'petstore-bench-test-only-'));
  const committedBefore = await mtime(committedResults);
  // With the `--` that `pnpm bench -- --only fastify` passes on.
  const { code, output } = await runSmoke(onlyDir, ['--', '--only', 'fastify']);
  expect(code, output).toBe(0);

  const results = JSON.parse(await readFile(join(onlyDir, 'results.json'), 'utf8')) as Record<
    string,
    unknown
  > &
    Pick<Results, 'adapterOverhead' | 'targets'>;
  expect(results.adapterOverhead.map((row) => `${row.framework} ${row.operation}`)).toEqual([
    'fastify list',
    'fastify create',
  ]);
  expect(results.only).toEqual(['fastify']);
  expect(results.coreAlone).toBeUndefined();
  expect(results.targets.map((target) => target.name)).toEqual([
    'fastify list: throughput ours/hand-written',
    'fastify list: p99 ours/hand-written',
    'fastify create: throughput ours/hand-written',
    'fastify create: p99 ours/hand-written',
  ]);
  expect(output).not.toContain('starting PostgreSQL');
  expect(await mtime(committedResults)).toBe(committedBefore);
}, 60_000);

test('--only sqlite runs just the SQLite page rows and the SQLite section', async () => {
  sqliteDir = await mkdtemp(join(tmpdir(), 'petstore-bench-test-sqlite-'));
  const committedBefore = await mtime(committedResults);
  const { code, output } = await runSmoke(sqliteDir, ['--only', 'sqlite']);
  expect(code, output).toBe(0);
  const results = JSON.parse(await readFile(join(sqliteDir, 'results.json'), 'utf8')) as Record<
    string,
    unknown
  > &
    Pick<Results, 'pageCost' | 'sqlite' | 'targets'>;
  expect(results.only).toEqual(['sqlite']);
  expect(results.adapterOverhead).toBeUndefined();
  expect(results.pageCost.rows.map((row) => row.storage)).toEqual(Array(4).fill('sqlite'));
  expect(results.sqlite.rows.map((row) => row.workload)).toEqual([
    'list',
    'create',
    'keyed create',
  ]);
  expect(results.targets.length).toBe(4 * 2 + 3 * 2);
  expect(output).not.toContain('starting PostgreSQL');
  expect(await mtime(committedResults)).toBe(committedBefore);
}, 60_000);

test('--only overload runs just section 8', async () => {
  overloadDir = await mkdtemp(join(tmpdir(), 'petstore-bench-test-overload-'));
  const committedBefore = await mtime(committedResults);
  const { code, output } = await runSmoke(overloadDir, ['--only', 'overload']);
  expect(code, output).toBe(0);
  const results = JSON.parse(await readFile(join(overloadDir, 'results.json'), 'utf8')) as Record<
    string,
    unknown
  > &
    Pick<Results, 'overload' | 'targets'>;
  expect(results.only).toEqual(['overload']);
  expect(results.adapterOverhead).toBeUndefined();
  expectOverload(results.overload);
  expect(results.targets).toHaveLength(overloadTargetCount(results.overload));
  const markdown = await readFile(join(overloadDir, 'RESULTS.md'), 'utf8');
  expect(markdown).toContain('(charts/overload.svg)');
  expect(await mtime(committedResults)).toBe(committedBefore);
}, 120_000);

test('--only postgres runs just section 4 and the write ceiling', async () => {
  postgresDir = await mkdtemp(join(tmpdir(), 'petstore-bench-test-postgres-'));
  const committedBefore = await mtime(committedResults);
  const { code, output } = await runSmoke(postgresDir, ['--only', 'postgres']);
  expect(code, output).toBe(0);
  const results = JSON.parse(await readFile(join(postgresDir, 'results.json'), 'utf8')) as Record<
    string,
    unknown
  > &
    Pick<Results, 'postgres' | 'writeCeiling' | 'targets'>;
  expect(results.only).toEqual(['postgres']);
  expect(results.adapterOverhead).toBeUndefined();
  expect(results.sqlite).toBeUndefined();
  if (!('rows' in results.postgres)) throw new Error('section 4 skipped');
  expect(results.postgres.rows.length).toBeGreaterThanOrEqual(3);
  expectWriteCeiling(results.writeCeiling);
  expect(results.targets.map((target) => target.name)).toContain(
    'postgres direct keyed create: bytes to PostgreSQL per request ours/hand-written',
  );
  const markdown = await readFile(join(postgresDir, 'RESULTS.md'), 'utf8');
  expect(markdown).toContain('### The write ceiling');
  expect(await mtime(committedResults)).toBe(committedBefore);
}, 120_000);

/** The write ceiling ran (PostgreSQL under its quota), or says why not. */
function expectWriteCeiling(ceiling: Results['writeCeiling']): void {
  if (noQuota !== undefined) {
    expect(ceiling).toEqual({ skipped: `no CPU quota possible: ${noQuota}` });
    return;
  }
  if (!('rounds' in ceiling)) throw new Error(`write ceiling skipped: ${ceiling.skipped}`);
  expect(ceiling.bare.medianRps).toBeGreaterThan(0);
  expect(ceiling.ours.medianRps).toBeGreaterThan(0);
  expect(ceiling.throughput.rounds).toHaveLength(ceiling.rounds);
  expect(ceiling.control?.what).toBe('the pg peer, twice');
  // Ours (pets, orders, idempotency_keys, petstore_migrations) and the peer's twice (pets, orders,
  // claims): no autovacuum lands inside a round.
  expect(ceiling.tablesWithoutAutovacuum).toBe(10);
  // PostgreSQL's CPU was read from its group (whether a smoke run's few requests exhaust the
  // quota depends on the machine: test/cgroup.test.ts holds that a quota holds).
  expect(ceiling.quotaUsed.ours).toBeGreaterThan(0);
}

test('--only refuses a framework the bench does not know', async () => {
  const { code, output } = await runSmoke(tmpdir(), ['--only', 'koa']);
  expect(code).not.toBe(0);
  expect(output).toContain(
    '--only takes express, hapi, node, fastify, raw; or sqlite, postgres or overload alone; got koa',
  );
}, 30_000);
