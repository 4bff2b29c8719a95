import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  APP_ENV_NAMES,
  createTestDatabase,
  killStartedApps,
  startListening,
  type TestDatabase,
} from '@petstore/service/testing';
import { migrate } from '@petstore/storage-postgres';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { type CodeBlock, codeBlocks, REPO, readmes } from './readmes.js';

// Every ```ts block of every README.md that is a whole program runs, one after another, as its
// own process, as a reader would run it: `node --import tsx --conditions=@petstore/source`,
// from a folder where every workspace package resolves (docs/ depends on them all; a block
// showing a file of the tree, `// examples/x/src/main.ts`, runs beside that file), without a
// terminal, without API_KEY, and with DATABASE_URL (a new database) only when it names it.
// Each must print no warning (DeprecationWarning, ExperimentalWarning,
// MaxListenersExceededWarning...) and no uncaught error on stderr, and then either
//   - end by itself with 0 within EXIT_MS of the end of its top-level code (an open pool or a
//     forgotten timer that keeps it alive fails; the start-up before it, tsx compiling cold
//     sources on a busy machine included, has START_MS), or
//   - listen on its port (a server): it then answers its section's curl block (or, without
//     one, GET /v1/openapi.json), is still running SETTLE_MS later, and a SIGTERM ends it
//     within STOP_MS.
// A block importing @petstore/client is a client of the service the quick start starts: it
// runs against the example app on its documented address, with API_KEY its key, as the README
// says to run it. Blocks that are not programs are listed as skipped, with the rule's reason.
// typescript-snippets.test.ts type-checks every block; this one runs the programs among them.

/** A snippet that is not a whole program, and why: the rule that says so, or undefined. */
function notAProgram(code: string): string | undefined {
  if (/^\/\/ [\w./-]+\.test\.ts\b/.test(code)) return 'a test file: vitest runs it, not node';
  if (/^declare\s/m.test(code)) return "declares a stand-in for the reader's own code";
  if (!/^import\s+(?!type\s)/m.test(code)) {
    return 'an excerpt of types: it imports nothing that runs';
  }
  if (/\b(Bun|Deno)\.\w/.test(code)) return 'runs on Bun or Deno, not Node';
  return undefined;
}

/** README blocks that the rules above would run but that cannot run here, and why. None today. */
const SKIPPED: Readonly<Record<string, string>> = {};

/** The ports the READMEs' servers listen on: the API's, and the example service's management one. */
const DOCUMENTED_PORTS = [3000, 9464];
/** From spawn to the end of the snippet's top-level code (tsx compiles cold sources on a busy machine). */
const START_MS = 45_000;
/** From the end of its top-level code to its exit, for a program that ends by itself. */
const EXIT_MS = 5_000;
/** How long a server keeps running after its answer, before the SIGTERM. */
const SETTLE_MS = 500;
/** From SIGTERM to the server's exit. */
const STOP_MS = 5_000;
/** The key the client snippets' service accepts (they read it from API_KEY, as their README says). */
const CLIENT_KEY = 'run-snippets-key-5c1e9a07';

const OUT = join(REPO, 'docs/.tmp/run-snippets');
const blocks = readmes().flatMap((file) => codeBlocks(file, ['ts', 'typescript']));
const nameOf = (block: CodeBlock) => `${block.file}:${block.line}`;

/** Where a snippet is written: beside the file it shows (`// path/of/file.ts`), else under OUT. */
function placeOf(block: CodeBlock, index: number): string {
  const shown = /^\/\/ ([\w./-]+\.ts)\b/.exec(block.code)?.[1];
  return shown !== undefined && existsSync(join(REPO, shown))
    ? join(REPO, dirname(shown), `.readme-snippet-run-${index}.ts`)
    : join(OUT, `snippet-${index}.ts`);
}

/** The folder it runs from: its package's for a file of the tree, else docs/. */
function cwdOf(place: string): string {
  if (place.startsWith(OUT)) return join(REPO, 'docs');
  let dir = dirname(place);
  while (!existsSync(join(dir, 'package.json')) && dir !== REPO) dir = dirname(dir);
  return dir;
}

/** The port its server would listen on: the first it names (`port: 3000`, `listen(3000`), else 3000. */
function portOf(code: string): number {
  const named = /(?:\bport:\s*|\.listen\(\s*|127\.0\.0\.1:)(\d{2,5})\b/.exec(code)?.[1];
  return named === undefined ? 3000 : Number(named);
}

/** The first sh block calling curl after the snippet in its own section (up to the next heading). */
function neighbouringCurl(block: CodeBlock): string | undefined {
  const later = codeBlocks(block.file, ['sh', 'bash', 'shell']).filter((b) => b.line > block.line);
  const sectionEnd =
    headingLines(block.file).find((line) => line > block.line) ?? Number.POSITIVE_INFINITY;
  return later.find((b) => b.line < sectionEnd && /(^|\s)curl\s/m.test(b.code))?.code;
}

/** The 1-based lines of a README's headings (outside code blocks). */
function headingLines(file: string): number[] {
  const lines: number[] = [];
  let fenced = false;
  readFileSync(join(REPO, file), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (/^```/.test(line)) fenced = !fenced;
      else if (!fenced && /^#{1,6}\s/.test(line)) lines.push(index + 1);
    });
  return lines;
}

interface Snippet extends CodeBlock {
  readonly name: string;
  readonly index: number;
  readonly place: string;
  readonly skip: string | undefined;
}

const snippets: Snippet[] = blocks.map((block, index) => ({
  ...block,
  name: nameOf(block),
  index,
  place: placeOf(block, index),
  skip: SKIPPED[nameOf(block)] ?? notAProgram(block.code),
}));
const programs = snippets.filter((snippet) => snippet.skip === undefined);
const skipped = snippets.filter((snippet) => snippet.skip !== undefined);

/** The environment of a reader's shell: none of the apps' variables, no API_KEY, no test runner's. */
function readerEnv(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [...APP_ENV_NAMES, 'API_KEY', 'NODE_OPTIONS', 'NODE_ENV']) delete env[name];
  for (const name of Object.keys(env)) if (name.startsWith('VITEST')) delete env[name];
  return { ...env, ...extra };
}

/** Whether something listens on 127.0.0.1:port (a connection is accepted). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether a server of ours could listen on 127.0.0.1:port now. */
function free(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function expectPortsFree(ports: readonly number[]): Promise<void> {
  for (const port of ports) {
    if (!(await free(port))) {
      throw new Error(
        `port ${port} on 127.0.0.1 is taken by a process this test did not start; the README ` +
          `snippets listen on it: stop that process (\`ss -ltnp 'sport = :${port}'\` names it) and rerun`,
      );
    }
  }
}

interface Run {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once the snippet's top-level code has run to its end. */
  readonly ran: Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();
const databases = new Set<TestDatabase>();

/**
 * Runs the snippet at `place` through a wrapper that imports it and then reports on fd 3 that
 * its top-level code (awaits included) has finished: the snippet's own stdout and stderr stay
 * as they are, and its own file is its code, unchanged.
 */
function run(snippet: Snippet, env: NodeJS.ProcessEnv): Run {
  const wrapper = join(OUT, `run-${snippet.index}.mjs`);
  writeFileSync(
    wrapper,
    [
      "import { writeSync } from 'node:fs';",
      `await import(${JSON.stringify(pathToFileURL(snippet.place).href)});`,
      "writeSync(3, 'ran\\n');",
      '',
    ].join('\n'),
  );
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@petstore/source', wrapper],
    { cwd: cwdOf(snippet.place), env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] },
  );
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const ran = new Promise<void>((resolve) => {
    const marker = child.stdio[3];
    marker?.on('data', () => resolve());
    marker?.on('error', () => undefined);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, ran, exited };
}

type Outcome = 'ran' | 'exited' | 'listening' | 'timeout';

/**
 * Waits for the first of: the exit, `port` accepting (when given), the end of the top-level
 * code (when `ran` is asked for), `ms` passing.
 */
async function first(
  started: Run,
  port: number | undefined,
  ms: number,
  ran: boolean,
): Promise<Outcome> {
  const done = new AbortController();
  const candidates: Promise<Outcome>[] = [
    started.exited.then(() => 'exited' as const),
    within(ms, done.signal).then(() => 'timeout' as const),
  ];
  if (port !== undefined) {
    candidates.push(
      (async (): Promise<Outcome> => {
        while (!done.signal.aborted) {
          if (await accepts(port)) return 'listening';
          await within(100, done.signal);
        }
        return 'timeout';
      })(),
    );
  }
  if (ran) candidates.push(started.ran.then(() => 'ran' as const));
  try {
    return await Promise.race(candidates);
  } finally {
    done.abort();
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (no timer left behind). */
const within = (ms: number, signal: AbortSignal): Promise<void> =>
  sleep(ms, undefined, { signal }).catch(() => undefined);

/** Runs a curl block as written, each call reporting its status and whether it sent a key. */
async function runCurl(block: string): Promise<string> {
  const prelude = `set -euo pipefail
curl() {
  local auth=no
  for arg in "$@"; do case "$arg" in [Aa]uthorization:*) auth=yes ;; esac; done
  command curl -sS --max-time 10 "$@" -w "\\n@@ status=%{http_code} auth=$auth\\n"
}
`;
  const { stdout } = await promisify(execFile)('bash', ['-c', prelude + block], {
    timeout: 30_000,
  });
  return stdout;
}

/** The exit, or undefined when it has not come within `ms`. */
async function exitWithin<T>(exited: Promise<T>, ms: number): Promise<T | undefined> {
  const done = new AbortController();
  try {
    return await Promise.race([exited, within(ms, done.signal).then(() => undefined)]);
  } finally {
    done.abort();
  }
}

const describeOutput = (started: Run) =>
  `\n--- stdout:\n${started.stdout()}\n--- stderr:\n${started.stderr()}`;

/** What a clean run never prints on stderr. */
function expectQuietStderr(started: Run): void {
  const stderr = started.stderr();
  expect(stderr, `a warning on stderr${describeOutput(started)}`).not.toMatch(/Warning/);
  expect(stderr, `an error on stderr${describeOutput(started)}`).not.toMatch(
    /^\s*(\w*Error\b|Uncaught|Unhandled)|triggerUncaughtException|^\s+at \S/m,
  );
}

/** SIGKILLs the snippets this file started that still run, by their PID. */
function killChildren(): void {
  for (const child of children) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

afterEach(async () => {
  killChildren();
  killStartedApps();
  await Promise.all([...children].map((child) => exitWithin(once(child, 'exit'), STOP_MS)));
  for (const db of databases) await db.drop();
  databases.clear();
  // Beside a file of the tree only while it runs.
  for (const snippet of snippets) rmSync(snippet.place, { force: true });
});

afterAll(() => {
  killChildren();
  killStartedApps();
  rmSync(OUT, { recursive: true, force: true });
});

describe('the README programs run, print no warning, and exit promptly', () => {
  it('finds the programs (none found would make this suite vacuous)', () => {
    expect(programs.length).toBeGreaterThanOrEqual(20);
  });

  for (const { name, skip } of skipped) it.skip(`${name} is not run: ${skip}`, () => undefined);

  for (const snippet of programs) {
    it(
      snippet.name,
      async () => {
        const port = portOf(snippet.code);
        await expectPortsFree([...new Set([port, ...DOCUMENTED_PORTS])]);
        mkdirSync(OUT, { recursive: true });
        writeFileSync(snippet.place, snippet.code);

        const extra: Record<string, string> = {};
        if (/\bDATABASE_URL\b/.test(snippet.code)) {
          const db = await createTestDatabase(inject('postgresUrl'));
          databases.add(db);
          // Migrated, as the storage README's "Migrations" step leaves it, unless it migrates itself.
          if (!/\bmigrate\(/.test(snippet.code)) await migrate({ connectionString: db.url });
          extra.DATABASE_URL = db.url;
        }
        // A SQLite file of its own (the storage README's snippets read PETS_DB), never one in the tree.
        if (/\bPETS_DB\b/.test(snippet.code)) {
          extra.PETS_DB = join(mkdtempSync(join(tmpdir(), 'petstore-snippet-')), 'pets.db');
        }
        // A client of the service the quick start starts (`npm start`), with the key it printed.
        const client = /from '@petstore\/client'/.test(snippet.code);
        const service = client
          ? await startListening(join(REPO, 'examples/express-app'), {
              PORT: String(port),
              API_KEYS: CLIENT_KEY,
            })
          : undefined;
        if (client) extra.API_KEY = CLIENT_KEY;

        const started = run(snippet, readerEnv(extra));
        // A client's port is its service's: only the snippet's own exit counts.
        const watched = client ? undefined : port;
        const firstOutcome = await first(started, watched, START_MS, true);
        expect(
          firstOutcome,
          `neither ran to its end nor listened within ${START_MS} ms${describeOutput(started)}`,
        ).not.toBe('timeout');
        const outcome =
          firstOutcome === 'ran' ? await first(started, watched, EXIT_MS, false) : firstOutcome;

        if (outcome === 'listening') {
          // A server: it answers, keeps running, and stops on SIGTERM.
          const curl = neighbouringCurl(snippet);
          if (curl !== undefined) {
            const output = await runCurl(curl);
            const calls = [...output.matchAll(/@@ status=(\d+) auth=(yes|no)/g)];
            expect(calls.length, output).toBeGreaterThan(0);
            for (const [, status, auth] of calls) {
              expect(Number(status), `${curl}\n${output}`).toBeGreaterThanOrEqual(200);
              expect(Number(status), `${curl}\n${output}`).toBeLessThan(500);
              expect(Number(status), `${curl}\n${output}`).not.toBe(404);
              if (auth === 'yes') expect(Number(status), `${curl}\n${output}`).not.toBe(401);
            }
          } else {
            const answer = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`, {
              signal: AbortSignal.timeout(10_000),
            });
            await answer.arrayBuffer();
            expect(answer.status, describeOutput(started)).toBe(200);
          }
          // Still serving a moment later (no late crash), then asked to stop.
          await exitWithin(started.exited, SETTLE_MS);
          const { exitCode, signalCode } = started.child;
          expect({ exitCode, signalCode }, `it died serving${describeOutput(started)}`).toEqual({
            exitCode: null,
            signalCode: null,
          });
          started.child.kill('SIGTERM');
          const stopped = await exitWithin(started.exited, STOP_MS);
          expect(
            stopped,
            `still running ${STOP_MS} ms after SIGTERM${describeOutput(started)}`,
          ).toBeDefined();
          expect(
            stopped?.code === 0 || stopped?.signal === 'SIGTERM',
            `SIGTERM ended it with ${JSON.stringify(stopped)}${describeOutput(started)}`,
          ).toBe(true);
        } else {
          expect(
            outcome,
            `still running ${EXIT_MS} ms after its last statement, not listening on ${port}: ` +
              `something keeps it alive (an open pool or socket, a timer)${describeOutput(started)}`,
          ).toBe('exited');
          const { code, signal } = await started.exited;
          expect({ code, signal }, describeOutput(started)).toEqual({ code: 0, signal: null });
        }
        expectQuietStderr(started);

        if (service !== undefined) {
          service.signal('SIGTERM');
          await exitWithin(service.exited, STOP_MS);
        }
      },
      START_MS + EXIT_MS + STOP_MS + 60_000,
    );
  }
});
