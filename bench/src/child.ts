import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinnedCommand } from './cpu.js';

/** Messages a bench child sends: `ready` once, then one `result` or `error` per request. */
export type ChildMessage =
  | { readonly type: 'ready'; readonly port?: number }
  | { readonly type: 'result'; readonly value: unknown }
  | { readonly type: 'error'; readonly message: string };

export interface BenchChild {
  readonly pid: number;
  /** Port the child's server listens on (127.0.0.1), when it runs one. */
  readonly port: number | undefined;
  /** Sends a command and waits for its `result` (bounded by `timeoutMs`). */
  request(message: object, timeoutMs: number): Promise<unknown>;
  /** Asks the child to close and exit; kills this child's PID if it does not within 5 s. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
// Whatever happens to the run, the children it started do not outlive it.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface StartChildOptions {
  /** Core to pin the child to. */
  readonly cpu?: number;
  /** Extra Node flags (`--expose-gc`). */
  readonly nodeFlags?: readonly string[];
  readonly readyTimeoutMs?: number;
}

/**
 * Starts `script` (a .ts file beside this one, run with the same loader and
 * conditions as this process) with an IPC channel, and waits for its `ready`.
 */
export async function startChild(
  script: URL,
  args: readonly string[],
  options: StartChildOptions = {},
): Promise<BenchChild> {
  const nodeArgs = [
    ...process.execArgv,
    ...(options.nodeFlags ?? []),
    fileURLToPath(script),
    ...args,
  ];
  const [command, commandArgs] =
    options.cpu === undefined
      ? [process.execPath, nodeArgs]
      : pinnedCommand(options.cpu, process.execPath, nodeArgs);
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${fileURLToPath(script)}`);

  const next = (timeoutMs: number, what: string): Promise<ChildMessage> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${what}: no answer from child ${pid} in ${timeoutMs} ms`));
      }, timeoutMs);
      const onMessage = (message: ChildMessage) => {
        cleanup();
        resolve(message);
      };
      const onExit = (code: number | null, signal: string | null) => {
        cleanup();
        reject(new Error(`${what}: child ${pid} exited (${code ?? signal})`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });

  const ready = await next(options.readyTimeoutMs ?? 60_000, 'start').catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  if (ready.type !== 'ready') {
    child.kill('SIGKILL');
    throw new Error(
      `child ${pid} failed to start: ${ready.type === 'error' ? ready.message : ready.type}`,
    );
  }

  return {
    pid,
    port: ready.port,
    async request(message, timeoutMs) {
      const answer = next(timeoutMs, JSON.stringify(message));
      child.send(message);
      const reply = await answer;
      if (reply.type === 'error') throw new Error(`child ${pid}: ${reply.message}`);
      if (reply.type !== 'result') throw new Error(`child ${pid}: unexpected ${reply.type}`);
      return reply.value;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      if (child.connected) child.send({ type: 'stop' });
      else child.kill('SIGTERM');
      await exited;
      clearTimeout(force);
    },
  };
}

/** For the child side: report, and leave when the parent goes away or asks. */
export function childChannel(onStop: () => Promise<void>): (message: ChildMessage) => void {
  const send = (message: ChildMessage): void => {
    process.send?.(message);
  };
  const leave = () => {
    void onStop().finally(() => process.exit(0));
  };
  process.on('disconnect', leave);
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'stop') leave();
  });
  return send;
}
