import { parseArgs } from 'node:util';
import { DEFAULT_MIGRATE_LOCK_TIMEOUT_MS, migrate } from './migrate.js';
import { DEFAULT_SCHEMA } from './schema-name.js';

const USAGE = `Usage: DATABASE_URL=postgres://user:password@host:5432/db petstore-migrate [--schema name] [--lock-timeout-ms n]

Applies the pending @petstore/storage-postgres migrations to the schema (default "${DEFAULT_SCHEMA}").
Safe to run again, and from several processes at once: each waits its turn for the migration
lock, at most --lock-timeout-ms milliseconds (default ${DEFAULT_MIGRATE_LOCK_TIMEOUT_MS}), then fails.`;

/** A positive whole number of milliseconds, written as plain digits. */
function parseMillis(text: string | undefined): number | undefined | Error {
  if (text === undefined) return undefined;
  const millis = Number(text);
  return /^[0-9]+$/.test(text) && Number.isSafeInteger(millis) && millis > 0
    ? millis
    : new Error(`--lock-timeout-ms must be a positive whole number of milliseconds, got "${text}"`);
}

/** The CLI as a function, so it can be tested in-process: returns the exit code. */
export async function runCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  let values: {
    schema?: string | undefined;
    'lock-timeout-ms'?: string | undefined;
    help?: boolean | undefined;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        schema: { type: 'string' },
        'lock-timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    out(USAGE);
    return 0;
  }
  const lockTimeoutMs = parseMillis(values['lock-timeout-ms']);
  if (lockTimeoutMs instanceof Error) {
    err(`${lockTimeoutMs.message}\n\n${USAGE}`);
    return 2;
  }
  const connectionString = env.DATABASE_URL;
  if (connectionString === undefined || connectionString === '') {
    err(`DATABASE_URL is not set.\n\n${USAGE}`);
    return 2;
  }
  const schema = values.schema ?? DEFAULT_SCHEMA;
  try {
    const result = await migrate({
      connectionString,
      schema,
      lockTimeoutMs: lockTimeoutMs ?? DEFAULT_MIGRATE_LOCK_TIMEOUT_MS,
    });
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
