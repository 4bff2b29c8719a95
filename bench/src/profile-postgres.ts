/**
 * PostgreSQL's side of section 4's gap, profiled: ours and the pg peer (named statements) each on
 * a schema of its own on one throwaway server, creates under autocannon (20 connections), with
 * `perf record -a -g` over each run, two rounds in turn:
 *
 *   cd bench && node --conditions=@petstore/source --import tsx src/profile-postgres.ts [keyed|create] [seconds]
 *
 * Writes /tmp/petstore-pgperf-<side>-<round>.data and prints each run's 2xx/s; compare the backends'
 * CPU by symbol with `perf report -i FILE --comm postgres --no-children --sort symbol -n --stdio`
 * (samples / Hz / requests = CPU per request). Needs root and `perf` (Debian: linux-perf).
 */
import { spawn, spawnSync } from 'node:child_process';
import { LOAD_CPU, pinSelf } from './cpu.js';
import { load } from './load.js';
import { requestSpec } from './measurements/adapter-overhead.js';
import { seedPgPeer } from './peers/index.js';
import { startDatabase } from './postgres.js';
import { benchSchema, seedPostgres } from './postgres-seed.js';
import { startServer } from './servers/start.js';

const [operation = 'keyed', secondsArg = '8'] = process.argv.slice(2);
if (operation !== 'keyed' && operation !== 'create') {
  throw new Error(`the operation is keyed or create, not ${operation}`);
}
const keyed = operation === 'keyed';
const seconds = Number(secondsArg);
if (!Number.isInteger(seconds) || seconds < 1 || seconds > 60) {
  throw new Error(`seconds is a whole number from 1 to 60, not ${secondsArg}`);
}
if (spawnSync('perf', ['--version']).status !== 0)
  throw new Error('no perf (apt-get install linux-perf)');

pinSelf(LOAD_CPU);
const db = await startDatabase({ own: true });
try {
  const schema = { ours: benchSchema('prof_ours'), peer: benchSchema('prof_peer') };
  await seedPostgres(db.url, schema.ours, 1000);
  await seedPgPeer(db.url, schema.peer, 1000);
  const common = { databaseUrl: db.url, poolMax: 16 } as const;
  const servers = {
    peer: await startServer({
      kind: 'node-peer-postgres',
      ...common,
      schema: schema.peer,
      namedStatements: true,
    }),
    ours: await startServer({ kind: 'node-ours-postgres', ...common, schema: schema.ours }),
  };
  try {
    for (const round of [1, 2]) {
      for (const side of ['peer', 'ours'] as const) {
        const spec = (s: number) => ({
          ...requestSpec(servers[side], 'create', { connections: 20, seconds: s }),
          idempotencyKeys: keyed,
        });
        await load(spec(3));
        const out = `/tmp/petstore-pgperf-${side}-${round}.data`;
        const args = [
          'record',
          '-F',
          '1999',
          '-g',
          '-a',
          '-o',
          out,
          '--',
          'sleep',
          String(seconds),
        ];
        const perf = spawn('perf', args, { stdio: 'ignore' });
        const exited = new Promise((resolve) => perf.once('exit', resolve));
        const result = await load(spec(seconds));
        await exited;
        console.log(`${side}, round ${round}: ${Math.round(result.rps)} 2xx/s; ${out}`);
      }
    }
  } finally {
    for (const server of Object.values(servers)) await server.stop();
  }
} finally {
  await db.stop();
}
