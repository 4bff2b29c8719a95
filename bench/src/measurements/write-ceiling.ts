/**
 * The write ceiling: how many keyed creates per second one PostgreSQL of a given size takes from
 * ours and from the hand-written pg peer. PostgreSQL (the bench's own server: its postmaster and
 * every backend it forks) runs under a fixed CPU quota (a cgroup, cgroup.ts); each side is
 * several server instances sharing one schema, as a fleet shares its primary, loaded hard enough
 * that PostgreSQL's quota, not Node or the load generator, is what limits it. Interleaved
 * rounds, with a second copy of the peer as the control, as in the rest of section 4.
 */

import pg from 'pg';
import { type CpuGroup, cpuGroupUnsupported, createCpuGroup } from '../cgroup.js';
import type { BenchChild } from '../child.js';
import type { BenchConfig } from '../config.js';
import { postgresCpuSeconds } from '../cpu-usage.js';
import { checked, runInterleaved } from '../interleave.js';
import { seedPgPeer } from '../peers/index.js';
import { type BenchDatabase, startDatabase } from '../postgres.js';
import { benchSchema, seedPostgres } from '../postgres-seed.js';
import type { Progress } from '../progress.js';
import type { WriteCeiling } from '../results.js';
import {
  compared,
  control,
  databaseCpuMicros,
  databaseCpuRatio,
  type MeasuredRun,
} from '../run-figures.js';
import { startServer } from '../servers/start.js';
import { median } from '../stats.js';
import { requestSpec } from './adapter-overhead.js';

const SIDES = ['peer', 'ours', 'copy'] as const;
type Side = (typeof SIDES)[number];

/** Share of the quota PostgreSQL used over each run: its CPU seconds / (quota x run seconds). */
function quotaUsed(runs: readonly MeasuredRun[], cpus: number): number | null {
  const shares = runs.map((run) =>
    run.databaseCpuSeconds === undefined || run.load.rps === 0
      ? null
      : run.databaseCpuSeconds / (cpus * (run.load.requests / run.load.rps)),
  );
  return shares.every((share) => share !== null) && shares.length > 0
    ? median(shares as number[])
    : null;
}

/**
 * Autovacuum off on the ceiling's tables. Under a quarter of a CPU, an autovacuum of a table takes
 * its CPU from whichever side runs then: a run with it on vacuumed five of its tables (and analyzed
 * four) inside its 15 rounds, and its rounds ranged 749 to 1,243 keyed creates/s. Both sides
 * write a pet and a claim per request, so the vacuum work they leave is alike; the rounds compare
 * what a request costs. (Rounds still swing ±20% without it: see config.ts.)
 */
async function withoutAutovacuum(url: string, schemas: readonly string[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = ANY($1)",
      [schemas],
    );
    for (const { name } of rows) {
      await client.query(
        `ALTER TABLE ${name} SET (autovacuum_enabled = off, toast.autovacuum_enabled = off)`,
      );
    }
    return rows.length;
  } finally {
    await client.end();
  }
}

/** Starts a side's instances, each on the side's schema (one database, as a fleet has). */
async function startSide(
  side: Side,
  databaseUrl: string,
  schema: string,
  config: BenchConfig['writeCeiling'],
): Promise<BenchChild[]> {
  const kind = side === 'ours' ? 'node-ours-postgres' : 'node-peer-postgres';
  return Promise.all(
    Array.from({ length: config.instances }, () =>
      startServer({ kind, databaseUrl, schema, poolMax: config.poolMax }),
    ),
  );
}

/**
 * On the bench's own PostgreSQL; when the bench runs on a server of the user's
 * (BENCH_DATABASE_URL), which it must not slow down for others, on a throwaway one of its own
 * started for this measurement. Skipped, saying why, where no CPU quota can be set (not root,
 * no cgroup v1 cpu controller).
 */
export async function measureWriteCeiling(
  config: BenchConfig,
  database: Pick<BenchDatabase, 'url' | 'postmasterPid'>,
  progress: Progress,
  schemas: string[],
): Promise<WriteCeiling | { readonly skipped: string }> {
  const unsupported = cpuGroupUnsupported();
  if (unsupported !== undefined) {
    const skipped = `no CPU quota possible: ${unsupported}`;
    progress.log(`write ceiling skipped: ${skipped}`);
    return { skipped };
  }
  if (database.postmasterPid !== undefined) {
    return measureOn(config, database, database.postmasterPid, progress, schemas);
  }
  progress.log('write ceiling: starting a PostgreSQL of its own to put the quota on');
  const own = await startDatabase({ own: true });
  try {
    if (own.postmasterPid === undefined) throw new Error('no postmaster pid for the own server');
    // Its schemas go with it.
    return await measureOn(config, own, own.postmasterPid, progress, []);
  } finally {
    await own.stop();
  }
}

async function measureOn(
  config: BenchConfig,
  database: Pick<BenchDatabase, 'url'>,
  postmasterPid: number,
  progress: Progress,
  schemas: string[],
): Promise<WriteCeiling> {
  const plan = config.writeCeiling;
  const schema: Record<Side, string> = {
    ours: benchSchema('ceiling_ours'),
    peer: benchSchema('ceiling_peer'),
    copy: benchSchema('ceiling_copy'),
  };
  schemas.push(...Object.values(schema));
  await seedPostgres(database.url, schema.ours, 1_000);
  await seedPgPeer(database.url, schema.peer, 1_000);
  await seedPgPeer(database.url, schema.copy, 1_000);
  const tablesWithoutAutovacuum = await withoutAutovacuum(database.url, Object.values(schema));

  let group: CpuGroup | undefined;
  const servers = new Map<Side, BenchChild[]>();
  try {
    group = await createCpuGroup({
      purpose: 'bench-postgres',
      cpus: plan.cpus,
      periodMicros: plan.periodMicros,
    });
    // The postmaster and what it runs now; the backends the servers open are forked from it later
    // and start in its group.
    const moved = await group.addTree(postmasterPid);
    progress.log(
      `write ceiling: PostgreSQL (${moved.length} processes) held to ${plan.cpus} CPU (cgroup ${group.name}); ` +
        `${plan.instances} instances per side, pools of ${plan.poolMax}, ${plan.connections} connections`,
    );
    for (const side of SIDES) {
      servers.set(side, await startSide(side, database.url, schema[side], plan));
    }
    const cpuGroup = group;
    const databaseCpuSeconds = (): number | undefined =>
      cpuGroup.usageSeconds() ?? postgresCpuSeconds(postmasterPid);
    const throttledBefore = group.stat().throttledPeriods;
    const contestants = SIDES.map((name) => {
      const instances = servers.get(name) ?? [];
      const [first] = instances;
      if (first === undefined) throw new Error(`no ${name} servers`);
      return {
        name,
        child: first,
        instances,
        spec: (bounds: Parameters<typeof requestSpec>[2], server: BenchChild) => ({
          ...requestSpec(server, 'create', bounds),
          idempotencyKeys: true,
        }),
        databaseCpuSeconds,
      };
    });
    const runs = await runInterleaved(contestants, plan, progress, 'write ceiling', checked);
    const of = (name: Side) => runs.get(name) ?? [];
    const throttledPeriods = group.stat().throttledPeriods - throttledBefore;
    return {
      cpus: plan.cpus,
      periodMicros: plan.periodMicros,
      instances: plan.instances,
      poolMax: plan.poolMax,
      connections: plan.connections,
      secondsPerRun: plan.secondsPerRun,
      rounds: plan.rounds,
      ...compared(of('peer'), of('ours')),
      control: control('the pg peer, twice', of('peer'), of('copy')),
      postgresCpuMicros: {
        bare: databaseCpuMicros(of('peer')),
        ours: databaseCpuMicros(of('ours')),
      },
      postgresCpu: databaseCpuRatio(of('peer'), of('ours')),
      quotaUsed: { bare: quotaUsed(of('peer'), plan.cpus), ours: quotaUsed(of('ours'), plan.cpus) },
      throttledPeriods,
      tablesWithoutAutovacuum,
    };
  } finally {
    await Promise.all([...servers.values()].flat().map((server) => server.stop()));
    await group?.remove();
  }
}
