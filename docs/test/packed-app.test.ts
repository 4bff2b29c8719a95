import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAppSteps, readmeApps } from './readme-apps.js';

// A release candidate tried as a user would: every published package packed (pnpm pack, so
// `publishConfig` applies), installed with npm into a new ESM app outside the repository, the app
// compiled with strict TypeScript under nodenext (skipLibCheck off: our declarations are checked),
// and run: the pet store and its reference page on Express, Fastify and Hapi.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const APP_SOURCE = fileURLToPath(new URL('./packed-app', import.meta.url));

const published = readdirSync(join(ROOT, 'packages'))
  .map((name) => join(ROOT, 'packages', name))
  .filter((dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      private?: boolean;
    };
    return manifest.private !== true;
  });
const built = published.every((dir) => existsSync(join(dir, 'dist', 'index.js')));
// CI builds before it tests; a clone that has not run `pnpm build` has nothing to pack.
if (!built && process.env.CI === 'true') throw new Error('packed-app: run `pnpm build` first');

describe.skipIf(!built)('packed tarballs in a new ESM app (run `pnpm build` first)', () => {
  let app: string;
  let lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    app = await mkdtemp(join(tmpdir(), 'petstore-packed-'));
    const tarballs = join(app, 'tarballs');
    await mkdir(tarballs);
    // `pnpm pack:all` without its build (CI built already): one line per tarball, nothing more.
    const { stdout: packLines } = await run(
      process.execPath,
      [join(ROOT, 'tools/pack-all.mjs'), '--no-build', '--out', tarballs],
      { cwd: app },
    );
    const packed = readdirSync(tarballs);
    expect(packed).toHaveLength(published.length);
    expect(
      packLines
        .trim()
        .split('\n')
        .map((line) => line.replace(/ \(\d+ kB\)$/, '')),
    ).toEqual(packed.map((file) => expect.stringMatching(`(^|/)${file}$`)));
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'packed-app', private: true, type: 'module' }),
    );
    await copyFile(join(APP_SOURCE, 'app.ts'), join(app, 'app.ts'));
    await copyFile(join(APP_SOURCE, 'tsconfig.json'), join(app, 'tsconfig.json'));
    // Every tarball on one line, as the root README's "Try a release candidate" says.
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--loglevel=error',
        ...packed.map((file) => `./tarballs/${file}`),
        'express@5',
        'fastify@5',
        '@hapi/hapi@21',
        'joi@17', // Hapi's own declarations import it (packages/hapi/README.md)
        'typescript@5.9',
        'ts7@npm:typescript@7', // what `npm install -D typescript` gives now
        '@types/express@5',
        '@types/node@22',
        'pg@8', // the README's PostgreSQL snippet
        '@types/pg@8',
      ],
      { cwd: app },
    );
    await run(join(app, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: app }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`the app does not compile:\n${error.stdout ?? String(error)}`);
      },
    );
    // The root README's snippets, each a module of its own, under the README's tsconfig.json.
    await mkdir(join(app, 'snippets'));
    await writeFile(join(app, 'snippets', 'tsconfig.json'), newAppSteps().tsconfig);
    for (const [index, snippet] of readmeApps().entries()) {
      await writeFile(join(app, 'snippets', `snippet-${index}.ts`), snippet.code);
    }
    const { stdout } = await run(process.execPath, ['dist/app.js'], { cwd: app });
    lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }, 300_000);
  afterAll(() =>
    app && process.env.KEEP_PACKED_APP === undefined
      ? rm(app, { recursive: true, force: true })
      : undefined,
  );

  it.each([
    ['5.9', 'node_modules/typescript/bin/tsc'],
    ['7', 'node_modules/ts7/bin/tsc'],
  ])(
    'every TypeScript snippet of the root README compiles with TypeScript %s (strict, nodenext)',
    async (version, tsc) => {
      const installed = JSON.parse(
        readFileSync(join(app, dirname(dirname(tsc)), 'package.json'), 'utf8'),
      ) as { version: string };
      expect(installed.version.startsWith(`${version}.`)).toBe(true);
      expect(readmeApps().length).toBeGreaterThanOrEqual(4);
      await run(process.execPath, [tsc, '-p', 'snippets/tsconfig.json', '--noEmit'], {
        cwd: app,
      }).catch((error: { stdout?: string }) => {
        throw new Error(`TypeScript ${version}:\n${error.stdout ?? String(error)}`);
      });
    },
  );

  it('every tarball carries the LICENSE and a CHANGELOG.md', async () => {
    const tarballs = readdirSync(join(app, 'tarballs'));
    expect(tarballs).toHaveLength(published.length);
    for (const tarball of tarballs) {
      const { stdout } = await run('tar', ['-tzf', join(app, 'tarballs', tarball)]);
      const files = stdout.split('\n');
      expect(files, tarball).toContain('package/LICENSE');
      expect(files, tarball).toContain('package/CHANGELOG.md');
    }
  });

  it.each(['express', 'fastify', 'hapi'])(
    'on %s: the client creates and lists a pet, and /docs serves the page and its script',
    (host) => {
      expect(lines.find((line) => line.host === host)).toMatchObject({
        created: 'Rex',
        listed: ['Rex'],
        docs: 200,
        docsType: expect.stringMatching(/^text\/html/),
        script: expect.stringMatching(/^\/docs\//),
        asset: 200,
        assetBytes: expect.any(Number),
      });
      expect(lines.find((line) => line.host === host)?.assetBytes).toBeGreaterThan(1000);
    },
  );
});
