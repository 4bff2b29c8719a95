import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect } from 'vitest';

const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
});

export interface InTerminal {
  /** `http://127.0.0.1:<port>/v1`, from the start-up lines. */
  readonly url: string;
  output(): string;
  /** A ^C typed into the terminal: SIGINT to the whole foreground process group. */
  ctrlC(): void;
  readonly exited: Promise<number | null>;
}

/**
 * Runs `command` in a terminal of its own, as a person does, and waits for the service it starts
 * to print where it listens. `script` gives the command a terminal; a ^C typed into it is the
 * terminal's SIGINT to the whole foreground process group, as a person's Ctrl-C is. `exec`: in a
 * person's terminal the command is the interactive shell's foreground job, and that shell
 * survives ^C; `script` runs it under `$SHELL -c`, which without SHELL (as in CI) is dash, and
 * dash would wait for npm inside the group and die of the ^C itself (130), whatever npm exits
 * with.
 */
export async function startInTerminal(
  command: string,
  where: { readonly cwd: string; readonly env: NodeJS.ProcessEnv },
): Promise<InTerminal> {
  const child = spawn('script', ['-qec', `exec ${command}`, '/dev/null'], {
    cwd: where.cwd,
    env: where.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let url: string | undefined;
  for (let waited = 0; url === undefined && waited < 60_000; waited += 100) {
    url = /listening on (http:\/\/\S+\/v1)/.exec(output)?.[1];
    await sleep(100);
  }
  expect(url, output).toBeDefined();
  return {
    url: url ?? '',
    output: () => output,
    ctrlC: () => child.stdin?.write('\x03'),
    exited,
  };
}
