import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { halfSentPost } from '@petstore/service/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO } from './readmes.js';

const KEY = 'quick-start-key-0123456789';

/** The root README's quick-start command that starts the service (after its install). */
function startCommand(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const line = block.split('\n').find((candidate) => candidate.includes('&&')) ?? '';
  // What follows the install: the install itself has run (this is its test run).
  return (line.split('&&')[1] ?? '').split('#')[0]?.trim() ?? '';
}

const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
});

/** The README's start command in a terminal of its own; Ctrl-C is `stop()`. */
async function startInTerminal(command: string, dataHome: string) {
  // `script` gives the command a terminal of its own; a ^C typed into it is the terminal's
  // SIGINT to the whole foreground process group, as a person's Ctrl-C is. `exec`: in a person's
  // terminal the command is the interactive shell's foreground job, and that shell survives ^C;
  // `script` runs it under `$SHELL -c`, which without SHELL (as in CI) is dash, and dash would
  // wait for npm inside the group and die of the ^C itself (130), whatever npm exits with.
  const child = spawn('script', ['-qec', `exec ${command}`, '/dev/null'], {
    cwd: REPO,
    env: {
      ...process.env,
      PORT: '0',
      MANAGEMENT_PORT: '0',
      API_KEYS: KEY,
      LOG_LEVEL: 'info',
      CI: '',
      // The default storage, a SQLite file under the XDG data folder: this test's own.
      DATABASE_URL: '',
      XDG_DATA_HOME: dataHome,
    },
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

let dataHome = '';
beforeAll(async () => {
  dataHome = await mkdtemp(join(tmpdir(), 'petstore-quick-start-'));
});
afterAll(() => rm(dataHome, { recursive: true, force: true }));

it("the README's start command stops on Ctrl-C in a terminal, request in flight, exits 0, and keeps its pets", async () => {
  const command = startCommand();
  expect(command).toBe('npm start');
  const first = await startInTerminal(command, dataHome);
  expect(first.output()).toContain(`SQLite file ${join(dataHome, 'petstore', 'pets.db')}`);
  const late = halfSentPost(
    `${first.url}/pets`,
    { authorization: `Bearer ${KEY}` },
    '{"name":"Late",',
  );
  await sleep(300);
  first.ctrlC();
  for (
    let waited = 0;
    !first.output().includes('no new connections') && waited < 10_000;
    waited += 50
  ) {
    await sleep(50);
  }
  late.finish('"categoryId":1}');
  const answer = await late.answer;
  expect(answer.status).toBe(201);
  expect(await first.exited).toBe(0);
  expect(first.output()).toMatch(/"msg":"stopped"/);
  expect(first.output()).not.toMatch(/ERR_PNPM|ELIFECYCLE|npm error/);

  // Started again: the pet created just before Ctrl-C is still there.
  const second = await startInTerminal(command, dataHome);
  const listed = await fetch(`${second.url}/pets`, { headers: { authorization: `Bearer ${KEY}` } });
  expect((await listed.json()) as unknown).toEqual([
    { id: 1, name: 'Late', categoryId: 1, status: 'available' },
  ]);
  second.ctrlC();
  expect(await second.exited).toBe(0);
}, 120_000);
