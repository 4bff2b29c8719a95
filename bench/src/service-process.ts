/**
 * A `petstore-service` instance for the past-capacity measurement: the service users run, as a
 * process of its own on 127.0.0.1, configured from its environment, pinned to the server core
 * and, when given, in a CPU-quota group (cgroup.ts). `pnpm bench` runs the built bin
 * (`packages/service/dist/main.js`), a source run (smoke) its `src/main.ts` through tsx. Its log
 * goes nowhere (stdout to /dev/null, as cheap as a log pipe can be); stderr is kept for a failed
 * start. A probe module (servers/service-probe.ts) answers heap and event-loop questions on the
 * IPC channel.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '@petstore/test-postgres';
import type { CpuGroup } from './cgroup.js';
import { pinnedCommand, SERVER_CPU } from './cpu.js';
import { API_KEY } from './fixtures.js';
import type { ServerProbe } from './servers/overload.js';

const SERVICE = new URL('../../packages/service/', import.meta.url);
const PROBE = fileURLToPath(new URL('./servers/service-probe.ts', import.meta.url));
const READY_TIMEOUT_MS = 60_000;

/** Whether this run reads the TypeScript sources (smoke) or the packages' dist (`pnpm bench`). */
export const fromSources = (): boolean =>
  process.execArgv.includes('--conditions=@petstore/source');

/** What is run: the built bin, or the sources when this run reads them. */
export function serviceEntry(): string {
  const built = fileURLToPath(new URL('dist/main.js', SERVICE));
  if (!fromSources() && existsSync(built)) return built;
  return fileURLToPath(new URL('src/main.ts', SERVICE));
}

export interface ServiceProcess {
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  /**
   * `start` resets the heap and event-loop probe (and has it take the live heap `liveAfterMs`
   * later); `read` answers it (null if the child did not).
   */
  probe(action: 'start' | 'read', liveAfterMs?: number): Promise<ServerProbe | null>;
  /** SIGTERM, then SIGKILL after 5 s: by its PID only. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /**
   * The service's variables beside the bench's own (PORT, HOST, API_KEYS, MANAGEMENT_PORT);
   * DATABASE_URL always (unset, the service would open the user's own SQLite file).
   */
  readonly env: Readonly<Record<string, string>> & { readonly DATABASE_URL: string };
  /** The CPU-quota group it runs in; none: unconstrained (a machine without cgroups). */
  readonly group?: CpuGroup | undefined;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Starts an instance and resolves once its `/readyz` answers 200 (on the management port). */
export async function startService({ env, group }: ServiceOptions): Promise<ServiceProcess> {
  const [port, managementPort] = [await freePort(), await freePort()];
  // --expose-gc: the probe takes the live heap after a full collection, once per level.
  const nodeArgs = [...process.execArgv, '--expose-gc', '--import', PROBE, serviceEntry()];
  const [command, args] = pinnedCommand(SERVER_CPU, process.execPath, nodeArgs);
  const child = spawn(command, args, {
    cwd: fileURLToPath(SERVICE),
    env: {
      PATH: process.env.PATH ?? '',
      API_KEYS: API_KEY,
      HOST: '127.0.0.1',
      PORT: String(port),
      MANAGEMENT_PORT: String(managementPort),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 20_000) stderr += chunk.toString('utf8');
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start petstore-service');
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(force);
  };
  try {
    // taskset execs node: the pid is the instance's own.
    await group?.add(pid);
    // On the management port, as probes belong: an instance that sheds refuses new connections
    // on the API port at accept, probes included.
    await untilReady(`http://127.0.0.1:${managementPort}/readyz`, child, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  const probe = (action: 'start' | 'read', liveAfterMs?: number): Promise<ServerProbe | null> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => finish(null), 30_000);
      const onMessage = (message: { type?: string; value?: unknown }) => {
        if (message.type === 'result') finish(message.value as ServerProbe);
      };
      const finish = (value: ServerProbe | null) => {
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(action === 'read' ? value : null);
      };
      child.on('message', onMessage);
      if (!child.connected) finish(null);
      else child.send({ type: 'overload-probe', action, liveAfterMs });
    });
  return { pid, port, url: `http://127.0.0.1:${port}`, probe, stop };
}

async function untilReady(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const until = performance.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `petstore-service exited (${child.exitCode ?? child.signalCode}):\n${stderr()}`,
      );
    }
    const ready = await fetch(url).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) return;
    if (performance.now() > until)
      throw new Error(`petstore-service not ready at ${url}:\n${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
