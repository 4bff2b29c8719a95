import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInTerminal } from './terminal.js';

// @petstore/service as a user gets it: its tarball and those of the packages it depends on
// (pnpm pack, so `publishConfig` applies), installed with npm into a new folder at a long path
// outside the repository, and its bin started the way its README says, in a terminal.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The service and every workspace package it depends on, as npm will need them. */
const PACKAGES = [
  'service',
  'core',
  'node',
  'api-reference',
  'storage-memory',
  'storage-sqlite',
  'storage-postgres',
];
const KEY = 'packed-service-key-0123456789';

const built = existsSync(join(ROOT, 'packages/service/dist/main.js'));
if (!built && process.env.CI === 'true') throw new Error('packed-service: run `pnpm build` first');

/** pnpm as the test runner was started with it, else through npx (as the README does). */
const pnpm = (args: string[], cwd: string) => {
  const execPath = process.env.npm_execpath ?? '';
  return execPath.includes('pnpm')
    ? run(process.execPath, [execPath, ...args], { cwd })
    : run('npx', ['-y', 'pnpm@10.34.9', ...args], { cwd });
};

describe.skipIf(!built)(
  '@petstore/service installed from its tarball (run `pnpm build` first)',
  () => {
    let top = '';
    let folder = '';

    beforeAll(async () => {
      top = await mkdtemp(join(tmpdir(), 'petstore-packed-service-'));
      // Over 100 characters, as a clone or project folder deep in a home directory often is.
      folder = join(top, 'projects', 'a-service-installed-by-someone-who-names-folders-in-full');
      expect(folder.length).toBeGreaterThan(100);
      const tarballs = join(top, 'tarballs');
      await mkdir(tarballs, { recursive: true });
      await mkdir(folder, { recursive: true });
      for (const name of PACKAGES) {
        await pnpm(['pack', '--pack-destination', tarballs], join(ROOT, 'packages', name));
      }
      await writeFile(
        join(folder, 'package.json'),
        JSON.stringify({ name: 'my-pets', private: true }),
      );
      const packed = (await readdir(tarballs)).map((file) => join(tarballs, file));
      await run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...packed],
        { cwd: folder },
      );
    }, 300_000);
    afterAll(() => (top ? rm(top, { recursive: true, force: true }) : undefined));

    it('petstore-service serves on SQLite by default, keeps a pet across a restart, and stops on Ctrl-C with exit 0', async () => {
      const manifest = JSON.parse(
        readFileSync(join(folder, 'node_modules/@petstore/service/package.json'), 'utf8'),
      ) as { bin: Record<string, string>; exports: Record<string, unknown> };
      // The tarball's own manifest: the bin, and no workspace-only entry (`./testing`).
      expect(manifest.bin).toEqual({ 'petstore-service': './dist/main.js' });
      expect(Object.keys(manifest.exports)).toEqual(['.', './package.json']);

      const dataHome = join(top, 'data');
      // A person's shell: none of the test runner's variables (pnpm's npm_*, vitest's, NODE_*).
      const shell = Object.fromEntries(
        Object.entries(process.env).filter(
          ([name]) => !/^(npm_|VITEST|NODE_|TINYPOOL)/i.test(name),
        ),
      );
      const env = {
        ...shell,
        PORT: '0',
        MANAGEMENT_PORT: '0',
        API_KEYS: KEY,
        XDG_DATA_HOME: dataHome,
        DATABASE_URL: '',
        CI: '',
      };
      const auth = { authorization: `Bearer ${KEY}` };
      const first = await startInTerminal('npx petstore-service', { cwd: folder, env });
      expect(first.output()).toContain(`SQLite file ${join(dataHome, 'petstore', 'pets.db')}`);
      const created = await fetch(`${first.url}/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: '{"name":"Packed","categoryId":1}',
      });
      expect(created.status).toBe(201);
      first.ctrlC();
      // npx runs the bin under `sh -c`, and sh dies of the terminal's SIGINT itself (130) whatever
      // the service exits with; the service's own code is its last line.
      await first.exited;
      expect(first.output()).toMatch(/"exitCode":0,"msg":"stopped"/);

      // The bin itself, as a process manager or a terminal runs it: its exit code is its own.
      const second = await startInTerminal('./node_modules/.bin/petstore-service', {
        cwd: folder,
        env,
      });
      const listed = await fetch(`${second.url}/pets`, { headers: auth });
      expect(await listed.json()).toEqual([
        { id: 1, name: 'Packed', categoryId: 1, status: 'available' },
      ]);
      const docs = await fetch(new URL('/docs', second.url));
      expect([docs.status, docs.headers.get('content-type')]).toEqual([
        200,
        'text/html; charset=utf-8',
      ]);
      second.ctrlC();
      expect(await second.exited, second.output()).toBe(0);
      expect(second.output()).toMatch(/"exitCode":0,"msg":"stopped"/);
    }, 120_000);
  },
);
