import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from './readmes.js';

// SLOW (about a minute; bounded at 4): the quick start, as a fresh clone whose path is 120
// characters long runs it: `pnpm install --frozen-lockfile --offline` (the store is warm after
// the run's own install), then `pnpm start` serving /docs, then
// `pnpm --filter @petstore/api-reference build`. Where a clone lives must not decide whether it
// installs (issue #30): an install that ran `tsx` (its IPC socket is
// `<package>/node_modules/.tmp/tsx-<uid>/<pid>.pipe`) failed there, as a Unix socket path holds
// at most 108 bytes: Node 24 refuses a longer one (listen EINVAL), Node 22 cuts it to 108 bytes.
// The clone's folder is placed so that those 108 bytes name the folder above it, which exists:
// the cut socket fails too (listen EADDRINUSE), as a 59-character clone did with the old socket.
//
// The copy is the working tree as git sees it (tracked and untracked files, not ignored ones),
// so it tests uncommitted changes too. The folder is removed afterwards (KEEP_LONG_PATH_CLONE=1
// keeps it).

const LENGTH = 120;
/** The bytes of a Unix socket path (sun_path). */
const SOCKET_PATH_BYTES = 108;
const KEY = 'long-path-key-0123456789';

const started: ChildProcess[] = [];
let top: string | undefined;
afterAll(async () => {
  for (const child of started) if (child.exitCode === null) killGroup(child, 'SIGKILL');
  if (top !== undefined && process.env.KEEP_LONG_PATH_CLONE === undefined) {
    await rm(top, { recursive: true, force: true });
  }
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Gone already.
  }
}

/** pnpm as the test runner was started with it, else through npx (as the README does). */
function pnpm(args: readonly string[]): [string, string[]] {
  const execPath = process.env.npm_execpath ?? '';
  return execPath.includes('pnpm')
    ? [process.execPath, [execPath, ...args]]
    : ['npx', ['-y', 'pnpm@10.34.9', ...args]];
}

/** Runs a command in its own process group, killed (with its children) after `timeoutMs`. */
function start(
  [command, args]: [string, string[]],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const { NODE_OPTIONS: _, ...inherited } = process.env;
  const child = spawn(command, args, {
    cwd,
    env: { ...inherited, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', (error) => {
      output += String(error);
      resolve(null);
    });
    child.on('close', (code) => resolve(code));
  });
  return { child, output: () => output, exited };
}

async function run(command: [string, string[]], cwd: string, timeoutMs: number) {
  const running = start(command, cwd);
  const timer = setTimeout(() => killGroup(running.child, 'SIGKILL'), timeoutMs);
  const code = await running.exited;
  clearTimeout(timer);
  return { code, output: running.output() };
}

/** `<tmp>/petstore-long-path-XXXXXX/ppp…/ccc…`: 120 characters, the folder above it 108. */
async function longFolder(): Promise<string> {
  top = await mkdtemp(join(realpathSync(tmpdir()), 'petstore-long-path-'));
  const padding = SOCKET_PATH_BYTES - top.length - 1;
  if (padding < 1) throw new Error(`the temporary folder ${top} is too long for this test`);
  const clone = join(top, 'p'.repeat(padding), 'c'.repeat(LENGTH - SOCKET_PATH_BYTES - 1));
  await mkdir(clone, { recursive: true });
  return clone;
}

/** The working tree's files as git sees them: tracked and untracked, without the ignored. */
async function copyWorkingTree(to: string): Promise<number> {
  const files = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: REPO,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  )
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(REPO, file)));
  for (const file of new Set(files)) {
    await cp(join(REPO, file), join(to, file), { verbatimSymlinks: true, recursive: true });
  }
  return files.length;
}

describe('[slow] a fresh clone in a folder whose path is 120 characters long', () => {
  it('installs, serves /docs with `pnpm start`, and builds @petstore/api-reference', async () => {
    const clone = await longFolder();
    expect(Buffer.byteLength(clone)).toBe(LENGTH);
    expect(await copyWorkingTree(clone)).toBeGreaterThan(100);

    const install = await run(pnpm(['install', '--frozen-lockfile', '--offline']), clone, 150_000);
    expect(install.code, install.output.slice(-4000)).toBe(0);

    // The quick start's next command: the sources build what /docs serves on first use.
    const service = start(pnpm(['start']), clone, {
      PORT: '0',
      MANAGEMENT_PORT: '0',
      API_KEYS: KEY,
    });
    let url: string | undefined;
    for (let waited = 0; url === undefined && waited < 60_000; waited += 100) {
      url = /listening on (http:\/\/\S+)\/v1/.exec(service.output())?.[1];
      if (service.child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(url, service.output().slice(-4000)).toBeDefined();
    const page = await fetch(`${url}/docs`);
    expect(page.status).toBe(200);
    const script = /src="(\/docs\/scalar\.[0-9a-f]{16}\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const bundle = await fetch(`${url}${script}`, { headers: { 'accept-encoding': 'br' } });
    expect([bundle.status, bundle.headers.get('content-encoding')]).toEqual([200, 'br']);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
    // The whole group, as a terminal's Ctrl-C would (the wrappers, pnpm or npx, die of it).
    killGroup(service.child, 'SIGTERM');
    await service.exited;
    expect(service.output()).toContain('"msg":"stopped"');

    const build = await run(pnpm(['--filter', '@petstore/api-reference', 'build']), clone, 150_000);
    expect(build.code, build.output.slice(-4000)).toBe(0);
    const assets = join(clone, 'packages/api-reference/dist/assets');
    const manifest = JSON.parse(readFileSync(join(assets, 'manifest.json'), 'utf8')) as {
      scalar: { file: string; compression?: string };
    };
    expect(manifest.scalar.compression).toBe('best');
    for (const file of ['', '.br', '.gz']) {
      expect(existsSync(join(assets, manifest.scalar.file + file))).toBe(true);
    }
    expect(existsSync(join(clone, 'packages/api-reference/dist/index.js'))).toBe(true);
  }, 240_000);
});
