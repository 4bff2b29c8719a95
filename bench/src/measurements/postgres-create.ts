import { type BenchChild, startChild } from '../child.js';
import type { BenchConfig } from '../config.js';
import { SERVER_CPU } from '../cpu.js';
import { withCpu } from '../cpu-usage.js';
import { type LoadResult, load } from '../load.js';
import { benchSchema, seedPostgres } from '../postgres-seed.js';
import type { Progress } from '../progress.js';
import type { PostgresCreate } from '../results.js';
import { figures, type MeasuredRun } from '../run-figures.js';
import { checked, describe, requestSpec, startServer } from './adapter-overhead.js';
import type { DirectSpec } from './pg-direct-child.js';

const DIRECT_ENTRY = new URL('./pg-direct-child.ts', import.meta.url);

type Side = 'service' | 'direct' | 'bare' | 'overMemory';
const SIDES: readonly Side[] = ['service', 'direct', 'bare', 'overMemory'];
const LABELS: Record<Side, string> = {
  service: 'service (PostgreSQL)',
  direct: 'direct pg',
  bare: 'bare Express + pg',
  overMemory: 'service (memory)',
};

/**
 * Creates per second through Express + our adapter + core + PostgreSQL storage,
 * against the same INSERT sent straight with `pg` at the same concurrency (the
 * ceiling). Both run in a child on the server core; PostgreSQL itself is not pinned.
 * Two more sides place a gap: the same create written by hand on Express with the
 * same INSERT (what HTTP + Express + pg allow), and our service over memory storage
 * (what HTTP + Express + core allow without a database).
 */
export async function measurePostgresCreate(
  config: BenchConfig,
  databaseUrl: string,
  progress: Progress,
  schemas: string[],
): Promise<PostgresCreate> {
  const {
    connections,
    warmupSeconds,
    secondsPerRun,
    rounds,
    maxRequestsPerRun: maxRequests,
  } = config.postgresCreate;
  const schema = benchSchema('create');
  schemas.push(schema);
  await seedPostgres(databaseUrl, schema, 0);
  const poolMax = connections;
  progress.log(
    `postgres create: starting the service (Express, pool of ${poolMax}) and the direct pg client`,
  );
  const service = await startServer({
    kind: 'express-ours-postgres',
    databaseUrl,
    schema,
    poolMax,
  });
  let direct: BenchChild | undefined;
  let overMemory: BenchChild | undefined;
  let bare: BenchChild | undefined;
  try {
    const directSpec: DirectSpec = { databaseUrl, schema, poolMax };
    direct = await startChild(DIRECT_ENTRY, [JSON.stringify(directSpec)], { cpu: SERVER_CPU });
    overMemory = await startServer({ kind: 'express-ours' });
    bare = await startServer({ kind: 'express-bare-postgres', databaseUrl, schema, poolMax });
    const directChild = direct;
    const http = (child: BenchChild) => async (seconds: number) => {
      const spec = requestSpec(child, 'create', { connections, seconds, maxRequests });
      const { result, cpu } = await withCpu(child.pid, () => load(spec));
      return { load: checked('service create', result), cpu };
    };
    const sides: Record<Side, (seconds: number) => Promise<MeasuredRun>> = {
      service: http(service),
      direct: async (seconds) => {
        const { result, cpu } = await withCpu(directChild.pid, () =>
          directChild.request(
            { type: 'run', seconds, concurrency: connections, maxInserts: maxRequests },
            (seconds + 30) * 1000,
          ),
        );
        return { load: checked('direct insert', result as LoadResult), cpu };
      },
      bare: http(bare),
      overMemory: http(overMemory),
    };

    progress.log(`postgres create: warm-up (${warmupSeconds}s each)`);
    for (const side of SIDES) await sides[side](warmupSeconds);
    progress.done(SIDES.length * warmupSeconds);
    const runs: Record<Side, MeasuredRun[]> = { service: [], direct: [], bare: [], overMemory: [] };
    for (let round = 1; round <= rounds; round++) {
      // Each round starts with a different side, so drift falls on all of them alike.
      const order = SIDES.map((_, index) => SIDES[(index + round - 1) % SIDES.length] as Side);
      for (const side of order) {
        const run = await sides[side](secondsPerRun);
        runs[side].push(run);
        progress.done(secondsPerRun);
        progress.log(
          `postgres create: ${LABELS[side]} round ${round}/${rounds}: ${describe(run.load, run.cpu.process)}`,
        );
      }
    }
    const serviceFigures = figures(runs.service);
    const directFigures = figures(runs.direct);
    return {
      connections,
      poolMax,
      secondsPerRun,
      service: serviceFigures,
      direct: directFigures,
      bare: figures(runs.bare),
      overMemory: figures(runs.overMemory),
      ratio: serviceFigures.medianRps / directFigures.medianRps,
    };
  } finally {
    await Promise.all([service.stop(), direct?.stop(), overMemory?.stop(), bare?.stop()]);
  }
}
