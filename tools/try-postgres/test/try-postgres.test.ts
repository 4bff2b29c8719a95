import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

const started: ChildProcess[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of folders) await rm(dir, { recursive: true, force: true });
});

interface Run {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/** `pnpm postgres:try --dir <dir>` as the root script runs it, up to its printed DATABASE_URL. */
async function tryPostgres(dir: string): Promise<Run> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@petstore/source', MAIN, '--dir', dir],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  started.push(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no DATABASE_URL in 90 s:\n${output}`)),
      90_000,
    );
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /^DATABASE_URL=(\S+)$/m.exec(output)?.[1];
      if (found !== undefined) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before printing DATABASE_URL:\n${output}`));
    });
  });
  return { child, url, output: () => output, exited };
}

async function tablesAt(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'petstore' ORDER BY 1`,
    );
    return rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}

describe('pnpm postgres:try', () => {
  it('prints a DATABASE_URL of a migrated database with a password, and stops on SIGINT with 0; the next run finds it again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-try-postgres-'));
    folders.push(dir);

    const first = await tryPostgres(dir);
    const url = new URL(first.url);
    expect([url.protocol, url.hostname, url.username, url.pathname]).toEqual([
      'postgres:',
      '127.0.0.1',
      'petstore',
      '/petstore',
    ]);
    expect(url.password).toMatch(/^[0-9a-f]{36}$/);
    expect(first.output()).toContain(`DATABASE_URL=${first.url} npm start`);
    expect(first.output()).toMatch(/migrations: applied 001_init, .*\(version \d+\)/);
    expect(await tablesAt(first.url)).toEqual(
      expect.arrayContaining(['idempotency_keys', 'pets', 'petstore_migrations']),
    );
    // The password is checked: the server does not trust local connections.
    const wrong = new URL(first.url);
    wrong.password = 'not-the-password';
    await expect(tablesAt(wrong.href)).rejects.toThrow(/password authentication failed/);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('PostgreSQL stopped.');

    // The data stays: the same role and password, nothing left to migrate.
    const second = await tryPostgres(dir);
    expect(new URL(second.url).password).toBe(url.password);
    expect(second.output()).toMatch(/migrations: up to date/);
    expect(await tablesAt(second.url)).toContain('pets');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);
});
