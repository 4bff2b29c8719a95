/**
 * The deploy's HAProxy in front of service instances, for the past-capacity measurement: the
 * configuration filled by `node deploy/fill.mjs --instances ...` as an operator writes it, its
 * settings from the environment (PETSTORE_*), pinned to the server core. Resolves once `/readyz`
 * answers 200 through it from every instance.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findExecutable, freePort } from '@petstore/test-postgres';
import type { CpuGroup } from './cgroup.js';
import { pinnedCommand, SERVER_CPU } from './cpu.js';

const FILL = fileURLToPath(new URL('../../deploy/fill.mjs', import.meta.url));

/** Debian's path, then PATH; '' when there is none. */
export const HAPROXY = findExecutable('haproxy');

export interface Balancer {
  readonly pid: number;
  readonly url: string;
  stop(): Promise<void>;
}

export interface BalancerOptions {
  /** `host:port` of each instance. */
  readonly instances: readonly string[];
  /** PETSTORE_* settings; the rest keep haproxy.cfg's defaults. */
  readonly settings?: Readonly<Record<string, string>>;
  readonly group?: CpuGroup | undefined;
}

export async function startBalancer({
  instances,
  settings = {},
  group,
}: BalancerOptions): Promise<Balancer> {
  if (HAPROXY === '') throw new Error('no haproxy binary (apt-get install haproxy)');
  const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-haproxy-'));
  const filled = spawnSync(
    process.execPath,
    [FILL, '--out', dir, '--instances', instances.join(',')],
    {
      encoding: 'utf8',
    },
  );
  if (filled.status !== 0) throw new Error(`deploy/fill.mjs failed: ${filled.stderr}`);
  const port = await freePort();
  const [command, args] = pinnedCommand(SERVER_CPU, HAPROXY, [
    '-db',
    '-f',
    join(dir, 'haproxy.cfg'),
  ]);
  const child: ChildProcess = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', PETSTORE_LISTEN: `127.0.0.1:${port}`, ...settings },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (output.length < 20_000) output += chunk.toString('utf8');
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (!gone()) {
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(force);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const pid = child.pid;
  const url = `http://127.0.0.1:${port}`;
  try {
    if (pid === undefined) throw new Error('could not start haproxy');
    await group?.add(pid);
    // Every instance up (rise 2 checks): as many 200s in a row as there are instances, twice.
    const until = performance.now() + 30_000;
    let inARow = 0;
    while (inARow < 2 * instances.length) {
      if (gone() || performance.now() > until)
        throw new Error(`HAProxy did not come up on ${url}:\n${output}`);
      const ok = await fetch(`${url}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      );
      inARow = ok ? inARow + 1 : 0;
      if (!ok) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { pid, url, stop };
}
