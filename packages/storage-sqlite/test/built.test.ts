import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The build, when there is one (CI builds before it tests): `node:sqlite` exists only under its
// `node:` name, and tsup strips the prefix unless told not to, which would ask for an npm package
// called `sqlite`. Both builds and the bin must load.
const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const built = ['dist/index.js', 'dist/index.cjs', 'dist/cli.js'].map((file) => `${PACKAGE}${file}`);
const coreBuilt = (() => {
  try {
    const core = createRequire(`${PACKAGE}package.json`).resolve('@petstore/core/package.json');
    return existsSync(core.replace(/package\.json$/, 'dist/index.cjs'));
  } catch {
    return false;
  }
})();
const run = promisify(execFile);

describe.skipIf(!built.every((file) => existsSync(file)))(
  'the built package (after `pnpm build`)',
  () => {
    it('imports node:sqlite under its node: name, in the ESM and the CJS build', () => {
      for (const file of built) {
        const text = readFileSync(file, 'utf8');
        expect(text, file).not.toMatch(/(from |require\()["']sqlite["']/);
      }
    });

    it.skipIf(!coreBuilt)(
      'loads from require() and import, and the bin runs (with @petstore/core built)',
      async () => {
        const cjs = await run(
          process.execPath,
          [
            '-e',
            "const m = require('./dist/index.cjs'); console.log(typeof m.createSqliteStorage, m.SCHEMA_VERSION)",
          ],
          { cwd: PACKAGE },
        );
        expect(cjs.stdout.trim()).toBe('function 2');
        const esm = await run(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            "const m = await import('./dist/index.js'); console.log(typeof m.backup)",
          ],
          { cwd: PACKAGE },
        );
        expect(esm.stdout.trim()).toBe('function');
        const bin = await run(process.execPath, ['bin/petstore-sqlite.js', '--help'], {
          cwd: PACKAGE,
        });
        expect(bin.stdout).toContain('Usage: petstore-sqlite <command>');
      },
      30_000,
    );
  },
);
