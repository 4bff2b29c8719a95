import { type BenchChild, startChild } from '../child.js';
import type { BenchConfig } from '../config.js';
import { SERVER_CPU } from '../cpu.js';
import { type LoadResult, load } from '../load.js';
import { benchSchema, seedPostgres } from '../postgres-seed.js';
import type { Progress } from '../progress.js';
import type { PostgresCreate, RunFigures } from '../results.js';
import { median } from '../stats.js';
import { checked, requestSpec, startServer } from './adapter-overhead.js';
import type { DirectSpec } from './pg-direct-child.js';

const DIRECT_ENTRY = new URL('./pg-direct-child.ts', import.meta.url);

function figures(runs: readonly LoadResult[]): RunFigures {
  return {
    rps: runs.map((run) => run.rps),
    p50Ms: runs.map((run) => run.p50Ms),
    p99Ms: runs.map((run) => run.p99Ms),
    medianRps: median(runs.map((run) => run.rps)),
    medianP99Ms: median(runs.map((run) => run.p99Ms)),
  };
}

/**
 * Creates per second through Express + our adapter + core + PostgreSQL storage,
 * against the same INSERT sent straight with `pg` at the same concurrency (the
 * ceiling). Both run in a child on the server core; PostgreSQL itself is not pinned.
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
  try {
    const directSpec: DirectSpec = { databaseUrl, schema, poolMax };
    direct = await startChild(DIRECT_ENTRY, [JSON.stringify(directSpec)], { cpu: SERVER_CPU });
    const directChild = direct;
    const runService = (seconds: number) =>
      load(requestSpec(service, 'create', { connections, seconds, maxRequests })).then((r) =>
        checked('service create', r),
      );
    const runDirect = async (seconds: number) =>
      checked(
        'direct insert',
        (await directChild.request(
          { type: 'run', seconds, concurrency: connections },
          (seconds + 30) * 1000,
        )) as LoadResult,
      );

    progress.log(`postgres create: warm-up (${warmupSeconds}s each)`);
    await runService(warmupSeconds);
    await runDirect(warmupSeconds);
    progress.done(2 * warmupSeconds);
    const runs: Record<'service' | 'direct', LoadResult[]> = { service: [], direct: [] };
    for (let round = 1; round <= rounds; round++) {
      const order =
        round % 2 === 1 ? (['service', 'direct'] as const) : (['direct', 'service'] as const);
      for (const side of order) {
        const result =
          side === 'service' ? await runService(secondsPerRun) : await runDirect(secondsPerRun);
        runs[side].push(result);
        progress.done(secondsPerRun);
        progress.log(
          `postgres create: ${side} round ${round}/${rounds}: ${Math.round(result.rps)} creates/s, p99 ${result.p99Ms.toFixed(2)} ms`,
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
      ratio: serviceFigures.medianRps / directFigures.medianRps,
    };
  } finally {
    await Promise.all([service.stop(), direct?.stop()]);
  }
}
