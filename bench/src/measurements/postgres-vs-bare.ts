import { findPgBouncer, startPgBouncer } from '@petstore/test-postgres';
import type { BenchChild } from '../child.js';
import type { BenchConfig } from '../config.js';
import { postgresCpuSeconds } from '../cpu-usage.js';
import { checked, type RunBounds, runInterleaved } from '../interleave.js';
import { load } from '../load.js';
import { seedPgPeer } from '../peers/index.js';
import type { BenchDatabase } from '../postgres.js';
import { benchSchema, seedPostgres } from '../postgres-seed.js';
import type { Progress } from '../progress.js';
import type {
  PostgresPath,
  PostgresRow,
  PostgresVsBare,
  PostgresWorkload,
  WireRow,
} from '../results.js';
import { compared, control, databaseCpuMicros, databaseCpuRatio } from '../run-figures.js';
import { startServer } from '../servers/start.js';
import { startWireCounter } from '../wire-count.js';
import { requestSpec } from './adapter-overhead.js';

/** The pets each schema starts with, so the list reads a full page and a next link. */
const SEED = 1_000;
const WORKLOADS: readonly PostgresWorkload[] = ['create', 'keyed create', 'list'];

/** The servers of one path: ours, the hand-written peer and a second copy of the peer. */
type Trio = Record<'peer' | 'ours' | 'copy', BenchChild>;

/** Each server on a schema of its own, seeded alike, all on the same database server. */
async function startTrio(
  databaseUrl: string,
  connectAt: string,
  path: PostgresPath,
  poolMax: number,
  schemas: string[],
): Promise<Trio & { readonly schema: Record<keyof Trio, string> }> {
  const schema = {
    ours: benchSchema(`pg_${path}`),
    peer: benchSchema(`peer_${path}`),
    copy: benchSchema(`copy_${path}`),
  };
  schemas.push(...Object.values(schema));
  await seedPostgres(databaseUrl, schema.ours, SEED);
  await seedPgPeer(databaseUrl, schema.peer, SEED);
  await seedPgPeer(databaseUrl, schema.copy, SEED);
  const spec = { databaseUrl: connectAt, poolMax };
  // PgBouncer in transaction mode cannot carry named statements; ours sends unnamed ones anyway.
  const peer = { namedStatements: path === 'direct' };
  const [ours, peerServer, copy] = await Promise.all([
    startServer({ kind: 'node-ours-postgres', ...spec, schema: schema.ours }),
    startServer({ kind: 'node-peer-postgres', ...spec, ...peer, schema: schema.peer }),
    startServer({ kind: 'node-peer-postgres', ...spec, ...peer, schema: schema.copy }),
  ]);
  return { ours, peer: peerServer, copy, schema };
}

/** One workload through one path: the three servers in interleaved rounds, after a warm-up each. */
async function measureWorkload(
  config: BenchConfig,
  progress: Progress,
  path: PostgresPath,
  workload: PostgresWorkload,
  trio: Trio,
  postmasterPid: number | undefined,
): Promise<PostgresRow> {
  const contestants = (['peer', 'ours', 'copy'] as const).map((name) => ({
    name,
    child: trio[name],
    spec: (bounds: RunBounds) => ({
      ...requestSpec(trio[name], workload === 'list' ? 'list' : 'create', bounds),
      idempotencyKeys: workload === 'keyed create',
    }),
    databaseCpuSeconds: () => postgresCpuSeconds(postmasterPid),
  }));
  const label = `postgres ${path} ${workload}`;
  const runs = await runInterleaved(contestants, config.postgres, progress, label, checked);
  const of = (name: string) => runs.get(name) ?? [];
  return {
    path,
    workload,
    ...compared(of('peer'), of('ours')),
    control: control('the pg peer, twice', of('peer'), of('copy')),
    postgresCpuMicros: { bare: databaseCpuMicros(of('peer')), ours: databaseCpuMicros(of('ours')) },
    postgresCpu: databaseCpuRatio(of('peer'), of('ours')),
  };
}

/** Requests per side and workload in the wire count, and before it (connections opened, plans cached). */
const WIRE_REQUESTS = { full: 3_000, smoke: 60 } as const;

/**
 * Per request, what each side says to PostgreSQL: bytes each way and round trips, through a
 * counting proxy (wire-count.ts), on ours' and the peer's schemas of the direct path. Closed loop,
 * counted by requests, so the proxy's hop does not matter.
 */
async function measureWire(
  config: BenchConfig,
  databaseUrl: string,
  progress: Progress,
  schemas: { readonly ours: string; readonly peer: string },
): Promise<WireRow[]> {
  const counter = await startWireCounter(databaseUrl);
  const spec = { databaseUrl: counter.url, poolMax: config.postgres.connections };
  const servers = {
    ours: await startServer({ kind: 'node-ours-postgres', ...spec, schema: schemas.ours }),
    peer: await startServer({ kind: 'node-peer-postgres', ...spec, schema: schemas.peer }),
  };
  const requests = WIRE_REQUESTS[config.mode];
  const rows: WireRow[] = [];
  try {
    for (const workload of WORKLOADS) {
      for (const side of ['peer', 'ours'] as const) {
        const send = async (count: number) =>
          checked(
            `postgres wire ${workload} ${side}`,
            await load({
              ...requestSpec(servers[side], workload === 'list' ? 'list' : 'create', {
                connections: config.postgres.connections,
                seconds: 60,
                maxRequests: count,
              }),
              idempotencyKeys: workload === 'keyed create',
            }),
          );
        await send(Math.ceil(requests / 10));
        counter.take();
        const { requests: served } = await send(requests);
        const counts = counter.take();
        rows.push({
          workload,
          side,
          requests: served,
          bytesToDatabase: counts.bytesToDatabase / served,
          bytesFromDatabase: counts.bytesFromDatabase / served,
          roundTrips: counts.roundTrips / served,
        });
        progress.log(
          `postgres wire ${workload} ${side}: ${(counts.roundTrips / served).toFixed(2)} round trips, ` +
            `${Math.round(counts.bytesToDatabase / served)} B out, ${Math.round(counts.bytesFromDatabase / served)} B back per request`,
        );
      }
    }
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    await counter.close();
  }
  return rows;
}

/**
 * PostgreSQL through `@petstore/node` + storage-postgres against the hand-written node:http +
 * pg peer of the whole contract (src/peers), on pools of the same size: first pages, creates
 * and keyed creates (the peer stores its claim with the pet in one transaction too), straight
 * to PostgreSQL and through PgBouncer in transaction mode (when a pgbouncer binary is found;
 * the results say when not), with the peer's copy as the control.
 */
export async function measurePostgresVsBare(
  config: BenchConfig,
  database: Pick<BenchDatabase, 'url' | 'postmasterPid'>,
  progress: Progress,
  schemas: string[],
): Promise<PostgresVsBare> {
  const databaseUrl = database.url;
  const { connections, secondsPerRun, rounds } = config.postgres;
  const poolMax = connections;
  const found = findPgBouncer();
  const bouncer =
    'bin' in found ? await startPgBouncer({ bin: found.bin, server: databaseUrl }) : undefined;
  const paths: Array<[PostgresPath, string]> = [['direct', databaseUrl]];
  if (bouncer !== undefined) paths.push(['pgbouncer', bouncer.connectionString]);
  const rows: PostgresRow[] = [];
  let wire: WireRow[] = [];
  try {
    for (const [path, url] of paths) {
      progress.log(
        `postgres ${path}: starting ours, the pg peer and its copy (pools of ${poolMax})`,
      );
      const trio = await startTrio(databaseUrl, url, path, poolMax, schemas);
      try {
        for (const workload of WORKLOADS) {
          rows.push(
            await measureWorkload(config, progress, path, workload, trio, database.postmasterPid),
          );
        }
      } finally {
        await Promise.all([trio.ours.stop(), trio.peer.stop(), trio.copy.stop()]);
      }
      if (path === 'direct') wire = await measureWire(config, databaseUrl, progress, trio.schema);
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
    wire,
    ...('missing' in found ? { pgbouncerMissing: found.missing } : {}),
  };
}
