/**
 * The ceiling for creates on PostgreSQL: the storage's own INSERT, issued with
 * `pg` from `concurrency` loops at once, no HTTP and no core. Runs as a child on
 * the server core, as the service does, and answers `run` commands over IPC.
 */
import pg from 'pg';
import { childChannel } from '../child.js';
import { CREATE_BODY } from '../fixtures.js';
import type { LoadResult } from '../load.js';
import { percentileSorted } from '../stats.js';

export interface DirectSpec {
  readonly databaseUrl: string;
  readonly schema: string;
  readonly poolMax: number;
}

export interface DirectRun {
  readonly type: 'run';
  readonly seconds: number;
  readonly concurrency: number;
  /** Stop after this many inserts (smoke runs), the seconds bounding them. */
  readonly maxInserts?: number | undefined;
}

const MAX_INSERTS_PER_RUN = 5_000_000;

const spec = JSON.parse(process.argv[2] ?? '{}') as DirectSpec;
const pool = new pg.Pool({ connectionString: spec.databaseUrl, max: spec.poolMax });
pool.on('error', () => undefined);
// Same text as the storage's insertPet (packages/storage-postgres/src/queries.ts).
const text = `INSERT INTO "${spec.schema}".pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING id, name, category_id, status`;
const { name, categoryId, status } = JSON.parse(CREATE_BODY) as {
  name: string;
  categoryId: number;
  status: string;
};

async function run({ seconds, concurrency, maxInserts }: DirectRun): Promise<LoadResult> {
  const times: number[] = [];
  let failures = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async () => {
    const most = Math.min(MAX_INSERTS_PER_RUN, maxInserts ?? MAX_INSERTS_PER_RUN);
    while (performance.now() < deadline && times.length < most) {
      const start = performance.now();
      try {
        await pool.query(text, [name, categoryId, status]);
        times.push(performance.now() - start);
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(times).sort();
  return {
    rps: times.length / elapsed,
    requests: times.length,
    p50Ms: percentileSorted(sorted, 50),
    p99Ms: percentileSorted(sorted, 99),
    failures,
  };
}

const send = childChannel(() => pool.end());
process.on('message', (message: { type?: string }) => {
  if (message.type !== 'run') return;
  run(message as DirectRun).then(
    (value) => send({ type: 'result', value }),
    (error: unknown) => send({ type: 'error', message: String(error) }),
  );
});
// Open every connection first, as the service's pool will have after its warm-up.
Promise.all(Array.from({ length: spec.poolMax }, () => pool.connect())).then(
  (clients) => {
    for (const client of clients) client.release();
    send({ type: 'ready' });
  },
  (error: unknown) => {
    send({ type: 'error', message: String(error) });
    process.exit(1);
  },
);
