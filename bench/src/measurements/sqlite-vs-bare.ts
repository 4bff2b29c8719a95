import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchChild } from '../child.js';
import type { BenchConfig } from '../config.js';
import { AUTHORIZATION, CREATE_BODY, CREATE_PATH, LIST_SEED_SIZE } from '../fixtures.js';
import { checked, type RunBounds, runInterleaved } from '../interleave.js';
import type { Progress } from '../progress.js';
import type { SqliteRow, SqliteVsBare, SqliteWorkload } from '../results.js';
import { compared, control } from '../run-figures.js';
import { startServer } from '../servers/start.js';
import { seedSqlite } from '../sqlite-seed.js';
import { median } from '../stats.js';
import { base, checkSameWork, requestSpec } from './adapter-overhead.js';
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
  sides: Record<'bare' | 'ours' | 'copy', BenchChild>,
): Promise<SqliteRow> {
  const contestants = (['bare', 'ours', 'copy'] as const).map((name) => ({
    name,
    child: sides[name],
    spec: (bounds: RunBounds) => ({
      ...requestSpec(sides[name], workload === 'list' ? 'list' : 'create', bounds),
      idempotencyKeys: workload === 'keyed create',
    }),
    eventLoopP99: () => eventLoopP99(sides[name]),
  }));
  const runs = await runInterleaved(
    contestants,
    config.sqlite,
    progress,
    `sqlite ${workload}`,
    checked,
  );
  const of = (name: string) => runs.get(name) ?? [];
  const delays = (name: string) => of(name).map((run) => run.eventLoopP99Ms ?? null);
  return {
    workload,
    ...compared(of('bare'), of('ours')),
    control: control('the bare route, twice', of('bare'), of('copy')),
    eventLoopP99Ms: {
      bare: delays('bare'),
      ours: delays('ours'),
      medianBare: medianOrNull(delays('bare')),
      medianOurs: medianOrNull(delays('ours')),
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
    const paths = {
      bare: join(dir, 'bare.db'),
      ours: join(dir, 'ours.db'),
      copy: join(dir, 'copy.db'),
    };
    for (const path of Object.values(paths)) seedSqlite(path, LIST_SEED_SIZE);
    progress.log(
      `sqlite: starting the bare node:sqlite route, ours and a copy of the bare route, files in ${dir}`,
    );
    const [bare, ours, copy] = await Promise.all([
      startServer({ kind: 'node-bare-sqlite', path: paths.bare }),
      startServer({ kind: 'node-ours-sqlite', path: paths.ours }),
      startServer({ kind: 'node-bare-sqlite', path: paths.copy }),
    ]);
    const rows: SqliteRow[] = [];
    try {
      await checkSameWork(bare, ours, 'sqlite');
      await checkKeyed(bare, 'bare');
      await checkKeyed(ours, 'ours');
      for (const workload of WORKLOADS) {
        rows.push(await measureWorkload(config, progress, workload, { bare, ours, copy }));
      }
    } finally {
      await Promise.all([bare.stop(), ours.stop(), copy.stop()]);
    }
    return { connections, secondsPerRun, rounds, seed: LIST_SEED_SIZE, rows };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
