import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { killStartedApps, type ListeningApp, startListening } from '@petstore/service/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_KEY, EXAMPLE_APPS } from './support/services.js';

// The TypeScript snippets of the root README and this package's README, each run as a user
// would: as a file of its own importing `@petstore/client`, against a started service.

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
/** Inside the package (so `@petstore/client` resolves to itself), gitignored. */
const SCRATCH = fileURLToPath(new URL('../.tmp/', import.meta.url));
const DOCUMENTED_URL = 'http://127.0.0.1:3000/v1';

/** The ```ts block right after `<!-- snippet: NAME ... -->`. */
async function snippet(readme: URL, name: string): Promise<string> {
  const text = await readFile(readme, 'utf8');
  const marker = text.indexOf(`<!-- snippet: ${name} `);
  expect(marker, `no snippet marker ${name} in ${readme.pathname}`).toBeGreaterThan(-1);
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(marker));
  if (block?.[1] === undefined) throw new Error(`no ts block after ${name}`);
  return block[1];
}

let app: ListeningApp;

beforeAll(async () => {
  const [express] = EXAMPLE_APPS;
  app = await startListening(express.dir, { API_KEYS: API_KEY });
  await mkdir(SCRATCH, { recursive: true });
});

afterAll(async () => {
  killStartedApps();
  await rm(SCRATCH, { recursive: true, force: true });
});

async function runSnippet(name: string, code: string): Promise<string> {
  expect(code).toContain(DOCUMENTED_URL);
  const file = `${SCRATCH}${name}.mts`;
  // The one change: the service under test listens on a port of its own.
  await writeFile(file, code.replaceAll(DOCUMENTED_URL, app.url));
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--conditions=@petstore/source', file],
    { cwd: PACKAGE_DIR, env: { ...process.env, API_KEY }, timeout: 30_000 },
  );
  return stdout;
}

it("runs the root README's client quick start", async () => {
  const code = await snippet(new URL('../../../README.md', import.meta.url), 'client-quick-start');
  const output = await runSnippet('root-readme', code);
  const created =
    /^created \{ id: (\d+), name: 'Rex', categoryId: 1, status: 'available' \}$/m.exec(output);
  expect(created, output).not.toBeNull();
  expect(output).toContain(`\n${created?.[1]} Rex\n`);
  // console.log wraps the details over lines once they are long.
  expect(output).toMatch(
    /^400 invalid_request \[\s*\{\s*path: 'name',\s*message: 'name must be a string of 1 to 256 characters'\s*\}\s*\]$/m,
  );
}, 60_000);

it("runs the client README's example", async () => {
  const code = await snippet(new URL('../README.md', import.meta.url), 'client-readme');
  const output = await runSnippet('client-readme', code);
  const lines = output.trim().split('\n');
  expect(lines[0]).toBe('true');
  expect(lines[1]).toMatch(/^1 undefined$/);
  expect(lines[2]).toMatch(/^\d+ Nemo$/);
  expect(lines[3]).toMatch(/^422 idempotency_key_reused [0-9a-f-]{36}$/);
}, 60_000);

it("runs the client README's time limits and cancelling example", async () => {
  const code = await snippet(new URL('../README.md', import.meta.url), 'client-timeouts');
  const output = await runSnippet('client-timeouts', code);
  expect(output.trim().split('\n')).toEqual(['AbortError', 'true']);
}, 60_000);

it("runs the client README's outcome_unknown example", async () => {
  const code = await snippet(new URL('../README.md', import.meta.url), 'client-outcome-unknown');
  expect(code).toContain("error.code !== 'outcome_unknown'");
  expect(code).toContain('error.idempotencyKey');
  const output = await runSnippet('client-outcome-unknown', code);
  // Against a healthy service the create is stored; run again, the same key replays it.
  expect(output.trim()).toBe('stored Bubbles');
  expect((await runSnippet('client-outcome-unknown', code)).trim()).toBe('stored Bubbles');
}, 60_000);
