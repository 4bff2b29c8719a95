import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { halfSentPost } from '@petstore/service/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO } from './readmes.js';
import { startInTerminal as inTerminal } from './terminal.js';

const KEY = 'quick-start-key-0123456789';

/** The root README's quick-start command that starts the service (after its install). */
function startCommand(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const line = block.split('\n').find((candidate) => candidate.includes('&&')) ?? '';
  // What follows the install: the install itself has run (this is its test run).
  return (line.split('&&')[1] ?? '').split('#')[0]?.trim() ?? '';
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
