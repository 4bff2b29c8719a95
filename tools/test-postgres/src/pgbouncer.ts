/**
 * Starts PgBouncer (Debian's `pgbouncer` package) in transaction mode in front of a test
 * PostgreSQL, as production runs it: `ignore_startup_parameters` left at its default, so a
 * startup parameter it does not know (such as `statement_timeout`) closes the connection.
 *
 * Found as `PGBOUNCER_BIN`, else /usr/sbin/pgbouncer (Debian puts it there, off most users'
 * PATH), else `pgbouncer` on PATH. Under root it runs as the same unprivileged user as the test
 * PostgreSQL (PgBouncer refuses to run as root), from a temp dir holding its config and auth file.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { executable } from './executables.js';
import { freePort, serverUser } from './postgres-server.js';

export interface PgBouncer {
  /** The server's connection string with PgBouncer's host and port. */
  readonly connectionString: string;
  readonly port: number;
  /** The settings it runs with, as written to its config file (for reports and docs). */
  readonly config: string;
  stop(): Promise<void>;
}

const DEBIAN_PATH = '/usr/sbin/pgbouncer';

/** The binary to run, or why there is none. */
export function findPgBouncer(
  env: NodeJS.ProcessEnv = process.env,
): { readonly bin: string } | { readonly missing: string } {
  const configured = env.PGBOUNCER_BIN;
  if (configured !== undefined && configured !== '') {
    return executable(configured)
      ? { bin: configured }
      : { missing: `PGBOUNCER_BIN=${configured} is not an executable file` };
  }
  if (executable(DEBIAN_PATH)) return { bin: DEBIAN_PATH };
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, 'pgbouncer'))) return { bin: join(dir, 'pgbouncer') };
  }
  return {
    missing: `no pgbouncer binary (not at ${DEBIAN_PATH}, not on PATH, PGBOUNCER_BIN unset); install it with: apt-get install pgbouncer`,
  };
}

export interface PgBouncerOptions {
  readonly bin: string;
  /** Connection string of the PostgreSQL server it pools; clients use its user and database. */
  readonly server: string;
  /**
   * A config file of your own instead of the test one (trust, every database): its placeholders
   * filled from `values`, and LISTEN_PORT and AUTH_FILE here; `authLines` are the auth file.
   */
  readonly own?: {
    readonly template: string;
    readonly values: Readonly<Record<string, string>>;
    readonly authLines: string;
  };
  /** Listen on this port (a restart keeps its address); default a free one. */
  readonly port?: number;
}

/**
 * A config template with its `${NAME}` placeholders filled in; any left unfilled is an error,
 * so a template and its caller cannot drift apart silently.
 */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\$\{(\w+)\}/g, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for ${placeholder}`);
    return value;
  });
}

const quoted = (text: string): string => `"${text.replaceAll('"', '""')}"`;

export async function startPgBouncer({
  bin,
  server,
  own,
  port: wanted,
}: PgBouncerOptions): Promise<PgBouncer> {
  const upstream = new URL(server);
  const user = decodeURIComponent(upstream.username) || 'postgres';
  const password = decodeURIComponent(upstream.password);
  const base = await mkdtemp(join(tmpdir(), 'petstore-pgbouncer-'));
  // The unprivileged user must be able to read its config (mkdtemp makes the dir 0700).
  await chmod(base, 0o755);
  const port = wanted ?? (await freePort());
  const authFile = join(base, 'userlist.txt');
  const testConfig = [
    '[databases]',
    `* = host=${upstream.hostname} port=${upstream.port || '5432'}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'pool_mode = transaction',
    // ignore_startup_parameters is deliberately left at its default (extra_float_digits only).
    // Clients on 127.0.0.1 are trusted; PgBouncer logs in to the server with the auth file's
    // password (none for the test server).
    'auth_type = trust',
    `auth_file = ${authFile}`,
    'max_client_conn = 500',
    'default_pool_size = 20',
    // After the server comes back, reconnect within a second (default 15 s).
    'server_login_retry = 1',
  ].join('\n');
  const config =
    own === undefined
      ? testConfig
      : fillTemplate(own.template, {
          ...own.values,
          LISTEN_PORT: String(port),
          AUTH_FILE: authFile,
        });
  const configFile = join(base, 'pgbouncer.ini');
  const authLines = own?.authLines ?? `${quoted(user)} ${quoted(password)}\n`;
  await writeFile(authFile, authLines, { mode: 0o644 });
  await writeFile(configFile, `${config}\n`, { mode: 0o644 });

  const runAs = serverUser();
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8', ...(runAs ?? {}) });
  if (probe.status !== 0) {
    await rm(base, { recursive: true, force: true });
    throw new Error(`${bin} --version failed: ${probe.error?.message ?? probe.stderr}`);
  }

  const child: ChildProcess = spawn(bin, [configFile], {
    cwd: base,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(runAs ?? {}),
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let log = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (log.length < 50_000) log += chunk;
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });

  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (!exited) {
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        // SIGINT: "safe shutdown" would wait for clients; SIGTERM closes at once.
        child.kill('SIGTERM');
      });
    }
    await rm(base, { recursive: true, force: true });
  };

  const until = performance.now() + 15_000;
  while (!(await accepts(port))) {
    if (exited || performance.now() > until) {
      await stop();
      throw new Error(`pgbouncer did not start listening on 127.0.0.1:${port}:\n${log}`);
    }
    await sleep(50);
  }
  const through = new URL(server);
  through.hostname = '127.0.0.1';
  through.port = String(port);
  return {
    connectionString: through.toString(),
    port,
    config,
    stop,
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
