import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { halfSentPost, oldNode } from '@petstore/service/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO } from './readmes.js';
import { startInTerminal as inTerminal } from './terminal.js';

const KEY = 'quick-start-key-0123456789';

/** The root README's quick-start command that starts the service (after its install). */
function startCommand(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const block =
    /## Quick start[\s\S]*?```sh\n([^`]*?pnpm@10 install &&[\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const line = block.split('\n').find((candidate) => candidate.includes('install &&')) ?? '';
  // What follows the install: the install itself has run (this is its test run).
  return (line.split('&&')[1] ?? '').split('#')[0]?.trim() ?? '';
}

/** The README's command that gets Node with npm alone, without its comment. */
function nodeInstallCommand(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const quickStart = readme.split('## Quick start')[1] ?? '';
  const line = quickStart.split('\n').find((candidate) => candidate.includes('node@24')) ?? '';
  return line.split('#')[0]?.trim() ?? '';
}

/** The README's start command in a terminal of its own; Ctrl-C is `ctrlC()`. */
const startInTerminal = (command: string, dataHome: string) =>
  inTerminal(command, {
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
  });

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

const old = oldNode();
it.skipIf(old === undefined && process.env.CI !== 'true')(
  `the README's start command on an older Node (${old?.version ?? 'none here'}) says which Node it needs and the README's npm line`,
  () => {
    if (old === undefined) throw new Error('CI needs a Node older than 22.13 (/usr/bin/node)');
    const command = startCommand();
    const run = spawnSync('sh', ['-c', command], {
      cwd: REPO,
      env: {
        ...process.env,
        PATH: `${dirname(old.path)}:${process.env.PATH ?? ''}`,
        DATABASE_URL: '',
        XDG_DATA_HOME: dataHome,
        PORT: '0',
        MANAGEMENT_PORT: '0',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status).toBe(1);
    expect(output).toContain(`this is Node ${old.version.slice(1)}.`);
    expect(output).toContain('petstore-service needs Node 22.13 or later');
    expect(nodeInstallCommand()).toBe(
      'npm install -g --prefix ~/.local node@24 && export PATH="$HOME/.local/bin:$PATH"',
    );
    expect(output).toContain(nodeInstallCommand());
    expect(output).toContain(`DATABASE_URL=memory: ${command}`);
    expect(output).not.toContain('No such built-in module');
  },
  60_000,
);
