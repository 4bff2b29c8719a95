import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchChild } from '../child.js';
import type { BenchConfig } from '../config.js';
import { withCpu } from '../cpu-usage.js';
import { AUTHORIZATION, CREATE_BODY, CREATE_PATH, LIST_SEED_SIZE } from '../fixtures.js';
import { load } from '../load.js';
import type { Progress } from '../progress.js';
import type { SqliteRow, SqliteVsBare, SqliteWorkload } from '../results.js';
import { compared, type MeasuredRun } from '../run-figures.js';
import { seedSqlite } from '../sqlite-seed.js';
import { median } from '../stats.js';
import {
  base,
  checked,
  checkSameWork,
  describe,
  requestSpec,
  startServer,
} from './adapter-overhead.js';
import { expectStatus, probe } from './http-probe.js';

const WORKLOADS: readonly SqliteWorkload[] = ['list', 'create', 'keyed create'];

/** The p99 event-loop delay of a server since the previous ask (null the first time). */
const eventLoopP99 = async (child: BenchChild): Promise<number | null> =>
  (await child.request({ type: 'event-loop-delay' }, 10_000)) as number | null;

/** A keyed create: 201, then the same key again replays the same pet, on both sides. */
async function checkKeyed(child: BenchChild, side: string): Promise<void> {
  const headers = {
    authorization: AUTHORIZATION,
    'content-type': 'application/json',
    'idempotency-key': randomUUID(),
  };
  const init = { method: 'POST', headers, body: CREATE_BODY };
  const first = await probe(base(child) + CREATE_PATH, init);
  expectStatus(`sqlite ${side} keyed create`, first, 201);
  const again = await probe(base(child) + CREATE_PATH, init);
  expectStatus(`sqlite ${side} keyed replay`, again, 201);
  if (again.body !== first.body || again.headers.get('idempotent-replayed') !== 'true') {
    throw new Error(`sqlite ${side}: the replay answered ${again.body} (first ${first.body})`);
  }
}

const medianOrNull = (values: readonly (number | null)[]): number | null => {
  const known = values.filter((value): value is number => value !== null);
  return known.length === 0 ? null : median(known);
};

async function measureWorkload(
  config: BenchConfig,
  progress: Progress,
  workload: SqliteWorkload,
  sides: Record<'bare' | 'ours', BenchChild>,
): Promise<SqliteRow> {
  const { connections, warmupSeconds, secondsPerRun, rounds, maxRequestsPerRun } = config.sqlite;
  const run = async (side: 'bare' | 'ours', seconds: number) => {
    const child = sides[side];
    const bounds = { connections, seconds, maxRequests: maxRequestsPerRun };
    await eventLoopP99(child); // a fresh count for this run
    const { result, cpu } = await withCpu(child.pid, () =>
      load({
        ...requestSpec(child, workload === 'list' ? 'list' : 'create', bounds),
        idempotencyKeys: workload === 'keyed create',
      }),
    );
    const delay = await eventLoopP99(child);
    return { measured: { load: checked(`sqlite ${workload} ${side}`, result), cpu }, delay };
  };
  for (const side of ['bare', 'ours'] as const) await run(side, warmupSeconds);
  progress.done(2 * warmupSeconds);
  const runs: Record<'bare' | 'ours', MeasuredRun[]> = { bare: [], ours: [] };
  const delays: Record<'bare' | 'ours', (number | null)[]> = { bare: [], ours: [] };
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const);
    for (const side of order) {
      const { measured, delay } = await run(side, secondsPerRun);
      runs[side].push(measured);
      delays[side].push(delay);
      progress.done(secondsPerRun);
      progress.log(
        `sqlite ${workload} ${side} round ${round}/${rounds}: ${describe(measured.load, measured.cpu.process)}, ` +
          `event-loop p99 ${delay === null ? 'n/a' : `${delay.toFixed(2)} ms`}`,
      );
    }
  }
  return {
    workload,
    ...compared(runs.bare, runs.ours),
    eventLoopP99Ms: {
      bare: delays.bare,
      ours: delays.ours,
      medianBare: medianOrNull(delays.bare),
      medianOurs: medianOrNull(delays.ours),
    },
  };
}

/**
 * SQLite through `@petstore/node` + storage-sqlite against a bare `node:http` route running the
 * storage's own statements on `node:sqlite` (bare-sqlite.ts), each on a fresh file of its own in
 * a temp folder, migrated and seeded alike: first pages, creates and keyed creates (both sides
 * store the claim with the pet in one transaction), rounds interleaved, with the p99 delay of
 * each server's event loop beside each run.
 */
export async function measureSqliteVsBare(
  config: BenchConfig,
  progress: Progress,
): Promise<SqliteVsBare> {
  const { connections, secondsPerRun, rounds } = config.sqlite;
  const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-sqlite-'));
  try {
    const paths = { bare: join(dir, 'bare.db'), ours: join(dir, 'ours.db') };
    seedSqlite(paths.bare, LIST_SEED_SIZE);
    seedSqlite(paths.ours, LIST_SEED_SIZE);
    progress.log(`sqlite: starting the bare node:sqlite route and ours, files in ${dir}`);
    const [bare, ours] = await Promise.all([
      startServer({ kind: 'node-bare-sqlite', path: paths.bare }),
      startServer({ kind: 'node-ours-sqlite', path: paths.ours }),
    ]);
    const rows: SqliteRow[] = [];
    try {
      await checkSameWork(bare, ours, 'sqlite');
      await checkKeyed(bare, 'bare');
      await checkKeyed(ours, 'ours');
      for (const workload of WORKLOADS) {
        rows.push(await measureWorkload(config, progress, workload, { bare, ours }));
      }
    } finally {
      await Promise.all([bare.stop(), ours.stop()]);
    }
    return { connections, secondsPerRun, rounds, seed: LIST_SEED_SIZE, rows };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
