import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { findExecutable, findPgBouncer, freePort } from '@petstore/test-postgres';

// HAProxy and PgBouncer for the tests that run deploy/'s files (Debian's packages; .ci/run
// installs them). Without them those tests are skipped, said here; under CI=true that is an error.

/** Debian's path (off most users' PATH), then PATH, as .ci/run looks for it. */
export const HAPROXY = findExecutable('haproxy');
export const PGBOUNCER = findPgBouncer();

/** Why deploy/'s files cannot be run here, or undefined. */
export const missingTools =
  HAPROXY === ''
    ? 'no haproxy binary (apt-get install haproxy)'
    : 'missing' in PGBOUNCER
      ? PGBOUNCER.missing
      : undefined;
if (missingTools !== undefined) {
  if (process.env.CI === 'true') throw new Error(`deploy/ tests: ${missingTools}`);
  console.warn(`\ndeploy/ tests SKIPPED: ${missingTools}.\n`);
}

/**
 * HAProxy's environment: PATH and `settings` only, so every PETSTORE_ variable not given is the
 * default the config sets with presetenv (none leaks in from the test's own environment).
 */
const haproxyEnv = (settings: Readonly<Record<string, string>>): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  ...settings,
});

/** `haproxy -c -f config`: its exit status and everything it printed. */
export function checkHaproxy(
  config: string,
  settings: Readonly<Record<string, string>> = {},
): { readonly status: number | null; readonly output: string } {
  const run = spawnSync(HAPROXY, ['-c', '-f', config], {
    env: haproxyEnv(settings),
    encoding: 'utf8',
    timeout: 10_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

export interface Haproxy {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:<port>`: PETSTORE_LISTEN, a free port. */
  readonly url: string;
  readonly port: number;
  /** What it printed (with the config's `log stderr` lines, its request log). */
  output(): string;
  /** SIGTERM to its PID (SIGKILL after 5 s); resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Runs HAProxy in the foreground on `config` with `settings` (PETSTORE_...) and PETSTORE_LISTEN
 * on a free loopback port; resolves once `/readyz` answers 200 through it.
 */
export async function startHaproxy(
  config: string,
  settings: Readonly<Record<string, string>> = {},
): Promise<Haproxy> {
  const port = await freePort();
  const child = spawn(HAPROXY, ['-db', '-f', config], {
    env: haproxyEnv({ PETSTORE_LISTEN: `127.0.0.1:${port}`, ...settings }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let output = '';
  const collect = (chunk: Buffer): void => {
    if (output.length < 200_000) output += chunk.toString('utf8');
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const gone = (): boolean => child.exitCode !== null || child.signalCode !== null;
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (gone()) return;
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(force);
  };
  const url = `http://127.0.0.1:${port}`;
  const until = performance.now() + 15_000;
  while (
    !(await fetch(`${url}/readyz`).then(
      (res) => res.status === 200,
      () => false,
    ))
  ) {
    if (gone() || performance.now() > until) {
      await stop();
      throw new Error(`HAProxy did not come up on ${url}:\n${output}`);
    }
    await sleep(100);
  }
  return { child, url, port, output: () => output, stop };
}
