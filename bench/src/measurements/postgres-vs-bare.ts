import { findPgBouncer, startPgBouncer } from '@petstore/test-postgres';
import type { BenchChild } from '../child.js';
import type { BenchConfig } from '../config.js';
import { withCpu } from '../cpu-usage.js';
import { load } from '../load.js';
import { benchSchema, seedPostgres } from '../postgres-seed.js';
import type { Progress } from '../progress.js';
import type { PostgresPath, PostgresRow, PostgresVsBare, PostgresWorkload } from '../results.js';
import { compared, type MeasuredRun } from '../run-figures.js';
import { checked, describe, type RunBounds, requestSpec, startServer } from './adapter-overhead.js';

/** The pets each schema starts with, so the list reads a full page and a next link. */
const SEED = 1_000;
const WORKLOADS: readonly PostgresWorkload[] = ['create', 'keyed create', 'list'];

/** Both servers of one path: the bare node:http route and ours, on the same database. */
export interface Pair {
  readonly bare: BenchChild;
  readonly ours: BenchChild;
}

export async function startPair(
  databaseUrl: string,
  schema: string,
  poolMax: number,
): Promise<Pair> {
  const spec = { databaseUrl, schema, poolMax };
  const [bare, ours] = await Promise.all([
    startServer({ kind: 'node-bare-postgres', ...spec }),
    startServer({ kind: 'node-ours-postgres', ...spec }),
  ]);
  return { bare, ours };
}

/**
 * One load run of `workload` on one side of the pair. A keyed create is ours with a fresh
 * `Idempotency-Key` per request against the bare plain create (the bare route has no
 * idempotency to offer).
 */
export function loadSide(
  pair: Pair,
  side: 'bare' | 'ours',
  workload: PostgresWorkload,
  bounds: RunBounds,
): ReturnType<typeof load> {
  return load({
    ...requestSpec(pair[side], workload === 'list' ? 'list' : 'create', bounds),
    idempotencyKeys: workload === 'keyed create' && side === 'ours',
  });
}

/**
 * One workload through one path: the bare route against ours, rounds
 * interleaved (A B, B A, ...) after a warm-up of each (see loadSide for keyed
 * creates).
 */
async function measureWorkload(
  config: BenchConfig,
  progress: Progress,
  path: PostgresPath,
  workload: PostgresWorkload,
  pair: Pair,
): Promise<PostgresRow> {
  const { connections, warmupSeconds, secondsPerRun, rounds, maxRequestsPerRun } = config.postgres;
  const run = async (side: 'bare' | 'ours', seconds: number): Promise<MeasuredRun> => {
    const bounds = { connections, seconds, maxRequests: maxRequestsPerRun };
    const { result, cpu } = await withCpu(pair[side].pid, () =>
      loadSide(pair, side, workload, bounds),
    );
    return { load: checked(`postgres ${path} ${workload} ${side}`, result), cpu };
  };
  for (const side of ['bare', 'ours'] as const) await run(side, warmupSeconds);
  progress.done(2 * warmupSeconds);
  const runs: Record<'bare' | 'ours', MeasuredRun[]> = { bare: [], ours: [] };
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const);
    for (const side of order) {
      const measured = await run(side, secondsPerRun);
      runs[side].push(measured);
      progress.done(secondsPerRun);
      progress.log(
        `postgres ${path} ${workload} ${side} round ${round}/${rounds}: ${describe(measured.load, measured.cpu.process)}`,
      );
    }
  }
  return { path, workload, ...compared(runs.bare, runs.ours) };
}

/**
 * PostgreSQL through `@petstore/node` + storage-postgres against a bare
 * `node:http` route that validates like the other bare routes and sends the
 * storage's own statements with `pg` on a pool of the same size: creates, keyed
 * creates and first pages, straight to PostgreSQL and through PgBouncer in
 * transaction mode (when a pgbouncer binary is found; the results say when not).
 */
export async function measurePostgresVsBare(
  config: BenchConfig,
  databaseUrl: string,
  progress: Progress,
  schemas: string[],
): Promise<PostgresVsBare> {
  const { connections, secondsPerRun, rounds } = config.postgres;
  const poolMax = connections;
  const found = findPgBouncer();
  const bouncer =
    'bin' in found ? await startPgBouncer({ bin: found.bin, server: databaseUrl }) : undefined;
  const paths: Array<[PostgresPath, string]> = [['direct', databaseUrl]];
  if (bouncer !== undefined) paths.push(['pgbouncer', bouncer.connectionString]);
  const rows: PostgresRow[] = [];
  try {
    for (const [path, url] of paths) {
      const schema = benchSchema(`pg_${path}`);
      schemas.push(schema);
      await seedPostgres(databaseUrl, schema, SEED);
      progress.log(`postgres ${path}: starting the bare route and ours (pool of ${poolMax})`);
      const pair = await startPair(url, schema, poolMax);
      try {
        for (const workload of WORKLOADS) {
          rows.push(await measureWorkload(config, progress, path, workload, pair));
        }
      } finally {
        await Promise.all([pair.bare.stop(), pair.ours.stop()]);
      }
    }
  } finally {
    await bouncer?.stop();
  }
  return {
    connections,
    poolMax,
    secondsPerRun,
    rounds,
    rows,
    ...('missing' in found ? { pgbouncerMissing: found.missing } : {}),
  };
}
