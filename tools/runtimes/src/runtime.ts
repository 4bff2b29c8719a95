import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from '@petstore/test-postgres';
import { bundleHarness, type Runtime } from './bundle.js';

export type { Runtime };

const require = createRequire(import.meta.url);

/** Where npm put a runtime's binary, or why it is not there (another platform, say). */
export function runtimeBinary(
  runtime: Runtime,
): { readonly bin: string } | { readonly missing: string } {
  try {
    const bin =
      runtime === 'bun'
        ? require.resolve('@oven/bun-linux-x64/bin/bun')
        : runtime === 'deno'
          ? join(dirname(require.resolve('@deno/linux-x64-glibc/package.json')), 'deno')
          : createRequire(require.resolve('workerd/package.json')).resolve(
              '@cloudflare/workerd-linux-64/bin/workerd',
            );
    return existsSync(bin) ? { bin } : { missing: `no ${runtime} binary at ${bin}` };
  } catch (error) {
    return {
      missing: `no ${runtime} package for this platform (${(error as Error).message.split('\n')[0]})`,
    };
  }
}

export interface RuntimeProcess {
  readonly runtime: Runtime;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** What the runtime printed, for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

/** workerd's config: the harness module, one socket (its address is given on the command line). */
const workerdConfig = (module: string) => `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .harness) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);

const harness :Workerd.Worker = (
  modules = [ (name = "harness.mjs", esModule = embed "${module}") ],
  compatibilityDate = "2026-11-17",
);
`;

async function command(runtime: Runtime, bin: string): Promise<{ args: string[]; port?: number }> {
  const bundle = await bundleHarness(runtime);
  if (runtime === 'bun') return { args: [bin, bundle] };
  if (runtime === 'deno') return { args: [bin, 'run', '--allow-all', '--quiet', bundle] };
  const config = join(dirname(bundle), 'workerd.capnp');
  writeFileSync(config, workerdConfig(bundle.split('/').pop() ?? ''));
  const port = await freePort();
  return { args: [bin, 'serve', config, '--socket-addr', `http=127.0.0.1:${port}`], port };
}

/** Waits until the runtime says where it listens (Bun, Deno) or answers on its port (workerd). */
async function listening(
  child: ChildProcess,
  output: () => string,
  port?: number,
): Promise<number> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the runtime exited:\n${output()}`);
    const said = /listening (\d+)/.exec(output())?.[1];
    if (said !== undefined) return Number(said);
    if (port !== undefined) {
      const answered = await fetch(`http://127.0.0.1:${port}/__harness/events`).then(
        () => true,
        () => false,
      );
      if (answered) return port;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the runtime did not listen within 20 s:\n${output()}`);
}

/** Starts the harness on `runtime`, listening on 127.0.0.1. */
export async function startRuntime(runtime: Runtime): Promise<RuntimeProcess> {
  const found = runtimeBinary(runtime);
  if ('missing' in found) throw new Error(found.missing);
  const { args, port } = await command(runtime, found.bin);
  const [bin = '', ...rest] = args;
  const child = spawn(bin, rest, { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const output = () => text;
  try {
    const at = await listening(child, output, port);
    return {
      runtime,
      origin: `http://127.0.0.1:${at}`,
      output,
      stop: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
