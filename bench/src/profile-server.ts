/**
 * One bench server under autocannon load, with a CPU profile of the server:
 *   node --conditions=@petstore/source --import tsx src/profile-server.ts fastify-ours list 10 [dir]
 * The operation is `list`, `create` or `keyed` (creates with an Idempotency-Key each).
 * The first argument is a kind of entry.ts, or a whole spec as JSON (the PostgreSQL kinds need
 * one: `{"kind":"node-peer-postgres","databaseUrl":...,"schema":...,"poolMax":16}`, on a schema
 * seeded beforehand).
 * The server child runs pinned like in the bench, with `--cpu-prof`; its
 * `.cpuprofile` lands in `dir` (default: a new temp dir, printed).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOAD_CPU, pinSelf } from './cpu.js';
import { withCpu } from './cpu-usage.js';
import { describe } from './interleave.js';
import { load } from './load.js';
import { requestSpec } from './measurements/adapter-overhead.js';
import type { ServerSpec } from './servers/spec.js';
import { startServer } from './servers/start.js';

const specArg = process.argv[2] ?? 'fastify-ours';
const spec = (specArg.startsWith('{') ? JSON.parse(specArg) : { kind: specArg }) as ServerSpec;
const kind = spec.kind;
// `keyed`: creates, each with an Idempotency-Key of its own (as section 4's keyed create).
const keyed = process.argv[3] === 'keyed';
const operation = process.argv[3] === 'create' || keyed ? 'create' : 'list';
const seconds = Math.min(60, Number(process.argv[4] ?? 10));
const dir = process.argv[5] ?? (await mkdtemp(join(tmpdir(), 'petstore-profile-')));

pinSelf(LOAD_CPU);
const server = await startServer(spec, [
  '--cpu-prof',
  '--cpu-prof-interval=100',
  `--cpu-prof-dir=${dir}`,
]);
try {
  const bounds = { connections: 20, seconds: 2 };
  const loadSpec = (seconds: number) => ({
    ...requestSpec(server, operation, { ...bounds, seconds }),
    idempotencyKeys: keyed,
  });
  await load(loadSpec(bounds.seconds)); // warm-up, outside the figure
  const run = await withCpu(server.pid, () => load(loadSpec(seconds)));
  process.stdout.write(
    `${kind} ${keyed ? 'keyed create' : operation}: ${describe(run.result, run.cpu.process)}\n`,
  );
} finally {
  await server.stop();
}
process.stdout.write(`profile in ${dir}\n`);
