/**
 * A throwaway PostgreSQL for the bench: the same embedded server the storage
 * tests start (C locale, run as `postgres`/`nobody` under root, 127.0.0.1 only,
 * no Unix socket), with durability off. Or `BENCH_DATABASE_URL`, if it points
 * at 127.0.0.1.
 */
import { startPostgresServer } from '@petstore/test-postgres';

export interface BenchDatabase {
  readonly url: string;
  /** Where it came from, for the report. */
  readonly source: string;
  stop(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

export async function startDatabase(): Promise<BenchDatabase> {
  const external = process.env.BENCH_DATABASE_URL;
  if (external !== undefined && external !== '') {
    const host = new URL(external).hostname;
    if (!LOOPBACK.has(host))
      throw new Error(`BENCH_DATABASE_URL must point at 127.0.0.1, not ${host}`);
    return { url: external, source: 'BENCH_DATABASE_URL', stop: async () => undefined };
  }
  // Durability off (fast): the bench measures the service, not the disk; both sides of
  // every comparison run against this same server.
  const server = await startPostgresServer({ fast: true, settings: { shared_buffers: '256MB' } });
  return {
    url: server.connectionString,
    source: 'embedded-postgres (fsync off)',
    stop: () => server.destroy(),
  };
}
