/**
 * `pnpm postgres:try [--dir <folder>] [--port <n>]`: a PostgreSQL of its own for trying the
 * standalone service. It starts the embedded server the tests use (tools/test-postgres) on
 * 127.0.0.1 with password authentication, gives it a role and a database `petstore` (the role's
 * password random), runs the storage's migrations, prints `DATABASE_URL=...` and the command that
 * starts the service on it, and runs until Ctrl-C (SIGINT) or SIGTERM, when it stops the server
 * (a fast shutdown) and exits 0.
 *
 * The data stays in the folder (default `.tmp/postgres-try` in the clone, gitignored) for the next
 * run, with the same URL when the port is still free: delete the folder to start afresh. Its
 * `try-postgres.json` (mode 0600) keeps the passwords.
 */

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { migrate } from '@petstore/storage-postgres';
import { freePort, serverUser, startPostgresServer } from '@petstore/test-postgres';
import pg from 'pg';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const DEFAULT_DIR = join(REPO, '.tmp', 'postgres-try');
const STATE_FILE = 'try-postgres.json';
/** The role and the database the service uses. */
const NAME = 'petstore';

interface State {
  readonly superuserPassword: string;
  readonly password: string;
  readonly port: number;
}

const secret = (): string => randomBytes(18).toString('hex');

function usage(message: string): never {
  console.error(`${message}\nusage: pnpm postgres:try [--dir <folder>] [--port <n>]`);
  process.exit(2);
}

function options(): { readonly dir: string; readonly port: number | undefined } {
  let values: { dir?: string | undefined; port?: string | undefined };
  try {
    ({ values } = parseArgs({
      options: { dir: { type: 'string' }, port: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    usage(error instanceof Error ? error.message : String(error));
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
    usage(`--port must be a port number from 1 to 65535; got ${values.port}`);
  }
  return { dir: values.dir === undefined ? DEFAULT_DIR : resolve(values.dir), port };
}

/**
 * Under root the server runs as another user (`postgres`, else `nobody`), who must be able to walk
 * into the folder (made searchable when the server starts): true when that user can search the
 * nearest folder above it that exists.
 */
function reachableByServer(dir: string): boolean {
  const runAs = serverUser();
  if (runAs === undefined) return true;
  let existing = dirname(dir);
  while (!existsSync(existing)) existing = dirname(existing);
  return spawnSync('test', ['-x', existing], { ...runAs, cwd: tmpdir() }).status === 0;
}

function readState(dir: string): State | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, STATE_FILE), 'utf8')) as State;
  } catch {
    return undefined;
  }
}

const portFree = (port: number): Promise<boolean> =>
  new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });

/** The role (its password set again) and its database, made by the superuser when missing. */
async function ensureRoleAndDatabase(superuserUrl: string, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: superuserUrl });
  await client.connect();
  try {
    const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [NAME]);
    await client.query(
      `${role.rowCount === 0 ? 'CREATE' : 'ALTER'} ROLE ${NAME} LOGIN PASSWORD ${client.escapeLiteral(password)}`,
    );
    const database = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [NAME]);
    if (database.rowCount === 0) await client.query(`CREATE DATABASE ${NAME} OWNER ${NAME}`);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const wanted = options();
  let { dir } = wanted;
  if (!reachableByServer(dir)) {
    if (dir !== DEFAULT_DIR) {
      usage(
        `the PostgreSQL user cannot reach ${dir} (a folder above it is private): choose another --dir`,
      );
    }
    // A clone in a private home (/root): the data goes where that user can reach it.
    dir = join(tmpdir(), 'petstore-postgres-try');
  }
  const state = readState(dir);
  if (state === undefined && existsSync(join(dir, 'data', 'PG_VERSION'))) {
    throw new Error(
      `${dir} holds a PostgreSQL cluster but not its passwords (${STATE_FILE}): delete ${dir} to start afresh`,
    );
  }
  const port =
    wanted.port ??
    (state !== undefined && (await portFree(state.port)) ? state.port : await freePort());
  const next: State = {
    superuserPassword: state?.superuserPassword ?? secret(),
    password: state?.password ?? secret(),
    port,
  };

  // Signals that come while it starts stop it once it has.
  let stopRequested: () => void = () => undefined;
  const stopSignal = new Promise<void>((resolveStop) => {
    stopRequested = resolveStop;
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stopRequested());

  const server = await startPostgresServer({
    dir,
    port,
    superuserPassword: next.superuserPassword,
    // Kept between runs: fsync on.
    fast: false,
  });
  try {
    await writeFile(join(dir, STATE_FILE), `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    await ensureRoleAndDatabase(server.connectionString, next.password);
    const url = `postgres://${NAME}:${next.password}@127.0.0.1:${port}/${NAME}`;
    const { applied, version } = await migrate({ connectionString: url });
    const shownDir = dir.startsWith(REPO) ? relative(REPO, dir) : dir;
    console.log(
      [
        `PostgreSQL on 127.0.0.1:${port}, data in ${shownDir} (kept for the next run; delete it to start afresh)`,
        `database and role "${NAME}", migrations: ${applied.length === 0 ? 'up to date' : `applied ${applied.join(', ')}`} (version ${version})`,
        '',
        `DATABASE_URL=${url}`,
        '',
        'Start the service on it, in another terminal (from the clone):',
        `  DATABASE_URL=${url} npm start`,
        '',
        'Ctrl-C stops PostgreSQL.',
      ].join('\n'),
    );
    await stopSignal;
  } finally {
    await server.stop();
  }
  console.log('PostgreSQL stopped.');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`postgres:try: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
