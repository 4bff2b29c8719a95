import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAppSteps, type ReadmeApp, readmeApps } from './readme-apps.js';
import { REPO } from './readmes.js';

// A release rehearsal on a real registry: the packages published with changesets into a
// Verdaccio this test starts, then installed by name into new folders as the root README tells
// a user (each snippet's own install lines, nothing more), built with TypeScript 7 (what the
// README's `npm install -D typescript` installs; packed-app.test.ts compiles the same snippets
// with 5.9 too), the Express app serving, and `npm install @petstore/service` then
// `npx petstore-service` serving too.

const run = promisify(execFile);
const KEY = 'my-secret-key-4f9a2c71';
const published = readdirSync(join(REPO, 'packages'))
  .map((name) => JSON.parse(readFileSync(join(REPO, 'packages', name, 'package.json'), 'utf8')))
  .filter((manifest: { private?: boolean }) => manifest.private !== true) as Array<{
  name: string;
  version: string;
}>;
const built = readdirSync(join(REPO, 'packages')).every(
  (name) =>
    JSON.parse(readFileSync(join(REPO, 'packages', name, 'package.json'), 'utf8')).private ===
      true || existsSync(join(REPO, 'packages', name, 'dist')),
);
// CI builds before it tests (the first half of `pnpm release`); a clone that has not run
// `pnpm build` has nothing to publish.
if (!built && process.env.CI === 'true')
  throw new Error('release-rehearsal: run `pnpm build` first');

/** Not one of these comes with an app that mounts the pet store on Express. */
const NOT_FOR_EXPRESS = ['vitest', 'fastify', '@hapi/hapi', '@petstore/conformance', 'pg'];

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

const children: ChildProcess[] = [];
/** A long-running process; resolves once its output matches `ready`. */
async function start(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  ready: RegExp,
): Promise<{ child: ChildProcess; output: () => string }> {
  // A group of its own: npx's child (the service) is stopped with it.
  const child = spawn(command, args, {
    ...options,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  for (let waited = 0; !ready.test(text); waited += 100) {
    if (child.exitCode !== null || waited > 60_000) {
      throw new Error(`${command} ${args.join(' ')} did not start:\n${text}`);
    }
    await sleep(100);
  }
  return { child, output: () => text };
}

/** Every package name in an npm project's tree. */
async function tree(dir: string): Promise<Set<string>> {
  const { stdout } = await run('npm', ['ls', '--all', '--parseable', '--long'], {
    cwd: dir,
    maxBuffer: 1e8,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return new Set(
    stdout
      .split('\n')
      .map((line) => line.split(':')[1] ?? '')
      .filter((spec) => spec !== '')
      .map((spec) => spec.slice(0, spec.lastIndexOf('@'))),
  );
}

describe.skipIf(!built)('a release rehearsal on a registry of our own (Verdaccio)', () => {
  let top = '';
  let registry = '';
  let env: NodeJS.ProcessEnv = {};
  const timings: Record<string, number> = {};
  const sh = (command: string, cwd: string) =>
    run('sh', ['-c', command], { cwd, env, maxBuffer: 1e8, timeout: 240_000 });
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      timings[name] = Math.round(performance.now() - started);
    }
  };

  beforeAll(async () => {
    top = await mkdtemp(join(tmpdir(), 'petstore-release-'));
    const port = await freePort();
    registry = `http://127.0.0.1:${port}/`;
    await writeFile(
      join(top, 'verdaccio.yaml'),
      [
        `storage: ${join(top, 'storage')}`,
        'auth:',
        '  htpasswd:',
        `    file: ${join(top, 'htpasswd')}`,
        // No uplink: only what this test publishes is here; everything else comes from npm's
        // own registry, as for a user (the user config below sends only @petstore here).
        'uplinks: {}',
        'packages:',
        "  '**':",
        '    access: $all',
        '    publish: $authenticated',
        'log: { type: stdout, format: pretty, level: warn }',
        '',
      ].join('\n'),
    );
    const verdaccio = join(REPO, 'docs/node_modules/.bin/verdaccio');
    await timed('verdaccio start', () =>
      start(
        verdaccio,
        ['--config', join(top, 'verdaccio.yaml'), '--listen', `127.0.0.1:${port}`],
        { cwd: top, env: process.env },
        /http address|listening|verdaccio\/[\d.]+/i,
      ),
    );
    // A publisher, as `npm adduser` makes one: its token goes in the user config.
    const added = await fetch(`${registry}-/user/org.couchdb.user:rehearsal`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'rehearsal', password: 'rehearsal-password-1' }),
    });
    expect(added.status).toBe(201);
    const { token } = (await added.json()) as { token: string };
    const userconfig = join(top, 'npmrc');
    const host = registry.replace(/^http:/, '');
    await writeFile(userconfig, `@petstore:registry=${registry}\n${host}:_authToken=${token}\n`);
    env = {
      ...process.env,
      npm_config_userconfig: userconfig,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
  }, 120_000);

  afterAll(async () => {
    for (const child of children) {
      if (child.pid === undefined || child.exitCode !== null) continue;
      try {
        process.kill(child.spawnargs[0] === 'npx' ? -child.pid : child.pid, 'SIGTERM');
      } catch {
        // gone already
      }
    }
    console.log(`release rehearsal timings (ms): ${JSON.stringify(timings)}`);
    if (top !== '' && process.env.KEEP_REHEARSAL === undefined) {
      await rm(top, { recursive: true, force: true });
    }
  });

  it('`changeset publish` (what `pnpm release` runs after its build) publishes every package', async () => {
    const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
    expect(manifest.scripts.release).toBe('pnpm build && changeset publish');
    // --no-git-tag: a rehearsal leaves the clone's tags alone.
    await timed('changeset publish', () =>
      run(
        process.execPath,
        [join(REPO, 'node_modules/@changesets/cli/bin.js'), 'publish', '--no-git-tag'],
        {
          cwd: REPO,
          env: { ...env, npm_config_registry: registry },
          maxBuffer: 1e8,
          timeout: 300_000,
        },
      ),
    );
    for (const { name, version } of published) {
      const answer = await fetch(`${registry}${name.replace('/', '%2f')}`);
      expect(answer.status, name).toBe(200);
      const document = (await answer.json()) as { versions: Record<string, unknown> };
      expect(Object.keys(document.versions), name).toContain(version);
    }
  }, 300_000);

  const apps = readmeApps();
  it('finds the README snippets and their install lines', () => {
    expect(apps.length).toBeGreaterThanOrEqual(4);
    for (const app of apps) expect(app.installs, app.name).not.toEqual([]);
  });

  /** A new folder as "In a new app" makes it, the snippet's installs run as written. */
  async function newApp(app: ReadmeApp, label: string, code = app.code): Promise<string> {
    const steps = newAppSteps();
    const parent = join(top, label);
    await mkdir(parent);
    await timed(`${label}: create`, () => sh(steps.create, parent));
    const dir = join(parent, /cd (\S+)/.exec(steps.create)?.[1] ?? '');
    for (const line of app.installs) await timed(`${label}: ${line}`, () => sh(line, dir));
    await writeFile(join(dir, 'app.ts'), code);
    await writeFile(join(dir, 'tsconfig.json'), steps.tsconfig);
    return dir;
  }

  it.each(apps.map((app, index) => ({ ...app, index })))(
    '$name: installs by name, as written beside it, and builds with TypeScript 7',
    async (app) => {
      const label = `snippet-${app.index}`;
      const express = app.code.includes("from '@petstore/express'");
      const port = await freePort();
      const dir = await newApp(app, label, app.code.replace('listen(3000', `listen(${port}`));
      const installed = JSON.parse(
        await readFile(join(dir, 'node_modules/typescript/package.json'), 'utf8'),
      ) as { version: string };
      expect(installed.version).toMatch(/^7\./);
      // The README's build-and-run line: the build, then (for the Express app) the server.
      const [build, serve] = newAppSteps()
        .run.split('&&')
        .map((part) => part.trim());
      await timed(`${label}: ${build}`, () => sh(build ?? '', dir)).catch(
        (error: { stdout?: string }) => {
          throw new Error(`${app.name} does not compile:\n${error.stdout ?? String(error)}`);
        },
      );
      if (!express) return;
      const names = await tree(dir);
      expect(names.has('@petstore/express') && names.has('@petstore/node')).toBe(true);
      expect(NOT_FOR_EXPRESS.filter((name) => names.has(name))).toEqual([]);
      const [command = 'node', ...args] = (serve ?? '').split(' ');
      const server = spawn(command, args, { cwd: dir, env, stdio: 'ignore' });
      children.push(server);
      let created: Response | undefined;
      for (let tries = 0; created === undefined && tries < 100; tries++) {
        created = await fetch(`http://127.0.0.1:${port}/v1/pets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: '{"name":"Rex","categoryId":1}',
        }).catch(() => sleep(100).then(() => undefined));
      }
      expect(created?.status).toBe(201);
      server.kill('SIGTERM');
    },
    300_000,
  );

  it('`npm install @petstore/service` then `npx petstore-service`: a 201, and no test tools', async () => {
    const dir = join(top, 'service');
    await mkdir(dir);
    await sh('npm init -y', dir);
    await timed('service: npm install @petstore/service', () =>
      sh('npm install @petstore/service', dir),
    );
    const names = await tree(dir);
    expect(
      ['vitest', 'fastify', '@hapi/hapi', '@petstore/conformance'].filter((n) => names.has(n)),
    ).toEqual([]);
    const port = await freePort();
    const service = await start(
      'npx',
      ['petstore-service'],
      {
        cwd: dir,
        env: { ...env, PORT: String(port), MANAGEMENT_PORT: '0', XDG_DATA_HOME: join(top, 'data') },
      },
      /Bearer ([^"]+)" /,
    );
    const key = /Bearer ([^"]+)" /.exec(service.output())?.[1] ?? '';
    const created = await fetch(`http://127.0.0.1:${port}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(created.status).toBe(201);
    process.kill(-(service.child.pid ?? 0), 'SIGTERM');
  }, 300_000);
});
