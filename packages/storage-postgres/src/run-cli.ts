import { parseArgs } from 'node:util';
import { migrate } from './migrate.js';
import { DEFAULT_SCHEMA } from './schema-name.js';

const USAGE = `Usage: DATABASE_URL=postgres://user:password@host:5432/db petstore-migrate [--schema name]

Applies the pending @petstore/storage-postgres migrations to the schema (default "${DEFAULT_SCHEMA}").
Safe to run again, and from several processes at once.`;

/** The CLI as a function, so it can be tested in-process: returns the exit code. */
export async function runCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  let values: { schema?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { schema: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    out(USAGE);
    return 0;
  }
  const connectionString = env.DATABASE_URL;
  if (connectionString === undefined || connectionString === '') {
    err(`DATABASE_URL is not set.\n\n${USAGE}`);
    return 2;
  }
  const schema = values.schema ?? DEFAULT_SCHEMA;
  try {
    const result = await migrate({ connectionString, schema });
    out(
      result.applied.length === 0
        ? `schema "${schema}" is up to date (version ${result.version})`
        : `schema "${schema}": applied ${result.applied.join(', ')} (now version ${result.version})`,
    );
    return 0;
  } catch (error) {
    // The message only: a connection string (with its password) must not reach the terminal.
    err(`migration failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
