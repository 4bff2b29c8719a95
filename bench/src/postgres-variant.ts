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
import { load } from './load.js';
import { describe, requestSpec, startServer } from './measurements/adapter-overhead.js';
import { startDatabase } from './postgres.js';
import { benchSchema, seedPostgres } from './postgres-seed.js';

const [workload = 'keyed', path = 'direct', roundsArg = '3', sqlFile] = process.argv.slice(2);
if (!['create', 'keyed', 'list'].includes(workload))
  throw new Error(`unknown workload ${workload}`);
if (!['direct', 'pgbouncer'].includes(path)) throw new Error(`unknown path ${path}`);
const rounds = Math.min(10, Math.max(1, Number(roundsArg) || 3));
const operation = workload === 'list' ? 'list' : 'create';

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
const spec = { databaseUrl: bouncer?.connectionString ?? db.url, schema, poolMax: 16 };
const sides = {
  bare: await startServer({ kind: 'node-bare-postgres', ...spec }),
  ours: await startServer({ kind: 'node-ours-postgres', ...spec }),
};
const run = (side: 'bare' | 'ours', seconds: number) =>
  load({
    ...requestSpec(sides[side], operation, { connections: 16, seconds }),
    idempotencyKeys: workload === 'keyed' && side === 'ours',
  });
try {
  for (const side of ['bare', 'ours'] as const) await run(side, 4);
  for (let round = 1; round <= rounds; round += 1) {
    const order = round % 2 === 1 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const);
    for (const side of order) {
      const before = postgresCpuSeconds();
      const measured = await withCpu(sides[side].pid, () => run(side, 5));
      const after = postgresCpuSeconds();
      const database =
        before === undefined || after === undefined
          ? 'unknown'
          : `${Math.round(((after - before) * 1e6) / measured.result.requests)} µs/request`;
      process.stdout.write(
        `${workload} ${path} ${side} round ${round}/${rounds}: ${describe(measured.result, measured.cpu.process)}, PostgreSQL CPU ${database}\n`,
      );
    }
  }
} finally {
  await Promise.all([sides.bare.stop(), sides.ours.stop()]);
  await bouncer?.stop();
  await db.stop();
}
