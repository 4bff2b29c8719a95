import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './readmes.js';

// The public API of each package is listed in its README: every name a published package
// exports at run time (from each of its entry points) appears there as a word.
interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly exports: Record<string, unknown>;
  /** What the tarball carries: entries kept for the workspace only (`./testing`) are not in it. */
  readonly publishConfig?: { readonly exports?: Record<string, unknown> };
}

const published = readdirSync(join(REPO, 'packages'))
  .map((dir) => ({
    dir: join(REPO, 'packages', dir),
    manifest: JSON.parse(
      readFileSync(join(REPO, 'packages', dir, 'package.json'), 'utf8'),
    ) as Manifest,
  }))
  .filter(({ manifest }) => manifest.private !== true);

describe('every export is in its package README', () => {
  it.each(published.map(({ dir, manifest }) => ({ dir, manifest, name: manifest.name })))(
    '$name',
    async ({ dir, manifest }) => {
      const readme = readFileSync(join(dir, 'README.md'), 'utf8');
      const missing: string[] = [];
      const exports = manifest.publishConfig?.exports ?? manifest.exports;
      for (const entry of Object.keys(exports).filter((key) => key !== './package.json')) {
        const specifier = entry === '.' ? manifest.name : `${manifest.name}${entry.slice(1)}`;
        const exported = Object.keys((await import(specifier)) as object);
        expect(exported.length).toBeGreaterThan(0);
        for (const name of exported) {
          if (!new RegExp(`\\b${name}\\b`).test(readme)) missing.push(`${entry} ${name}`);
        }
      }
      expect(missing).toEqual([]);
    },
  );
});
