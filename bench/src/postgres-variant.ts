/**
 * One PostgreSQL workload of section 4, ours against the bare route, with the
 * database's CPU per request beside each side's, optionally after SQL of your
 * own is run in the bench schema (a variant of `create_pet_once`, an index):
 *   node --conditions=@petstore/source --import tsx src/postgres-variant.ts keyed direct 3 [sql/keyed-floor.sql]
 * Workloads: create, keyed, list. Paths: direct, pgbouncer. Rounds at most 10.
 */
import { readFile } from 'node:fs/promises';
import { findPgBouncer, startPgBouncer } from '@petstore/test-postgres';
import pg from 'pg';
import { LOAD_CPU, pinSelf } from './cpu.js';
import { postgresCpuSeconds, withCpu } from './cpu-usage.js';
import { describe } from './measurements/adapter-overhead.js';
import { loadSide, startPair } from './measurements/postgres-vs-bare.js';
import { startDatabase } from './postgres.js';
import { benchSchema, seedPostgres } from './postgres-seed.js';
import type { PostgresWorkload } from './results.js';

const [workload = 'keyed', path = 'direct', roundsArg = '3', sqlFile] = process.argv.slice(2);
const WORKLOADS: Readonly<Record<string, PostgresWorkload>> = {
  create: 'create',
  keyed: 'keyed create',
  list: 'list',
};
const measured = WORKLOADS[workload];
if (measured === undefined) throw new Error(`unknown workload ${workload}`);
if (!['direct', 'pgbouncer'].includes(path)) throw new Error(`unknown path ${path}`);
const rounds = Math.min(10, Math.max(1, Number(roundsArg) || 3));

const db = await startDatabase();
// After PostgreSQL started, so its processes keep both cores, as in the bench.
pinSelf(LOAD_CPU);
const schema = benchSchema('variant');
await seedPostgres(db.url, schema, 1_000);
if (sqlFile !== undefined) {
  const client = new pg.Client(db.url);
  await client.connect();
  try {
    await client.query(`SET search_path TO ${schema}; ${await readFile(sqlFile, 'utf8')}`);
  } finally {
    await client.end();
  }
  process.stdout.write(`applied ${sqlFile} in ${schema}\n`);
}
const found = findPgBouncer();
if (path === 'pgbouncer' && !('bin' in found)) throw new Error(found.missing);
const bouncer =
  path === 'pgbouncer' && 'bin' in found
    ? await startPgBouncer({ bin: found.bin, server: db.url })
    : undefined;
const pair = await startPair(bouncer?.connectionString ?? db.url, schema, 16);
const run = (side: 'bare' | 'ours', seconds: number) =>
  loadSide(pair, side, measured, {
    connections: 16,
    seconds,
  });
try {
  for (const side of ['bare', 'ours'] as const) await run(side, 4);
  for (let round = 1; round <= rounds; round += 1) {
    const order = round % 2 === 1 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const);
    for (const side of order) {
      const before = postgresCpuSeconds();
      const { result, cpu } = await withCpu(pair[side].pid, () => run(side, 5));
      const after = postgresCpuSeconds();
      const database =
        before === undefined || after === undefined
          ? 'unknown'
          : `${Math.round(((after - before) * 1e6) / result.requests)} µs/request`;
      process.stdout.write(
        `${workload} ${path} ${side} round ${round}/${rounds}: ${describe(result, cpu.process)}, PostgreSQL CPU ${database}\n`,
      );
    }
  }
} finally {
  await Promise.all([pair.bare.stop(), pair.ours.stop()]);
  await bouncer?.stop();
  await db.stop();
}
