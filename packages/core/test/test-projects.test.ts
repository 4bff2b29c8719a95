import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import config from '../../../vitest.config.js';

// The root vitest config: one project per workspace package, PostgreSQL only where needed.
const projects = (config.test?.projects ?? []) as {
  test: { name: string; root: string; globalSetup: string[] };
}[];
const byName = new Map(projects.map((project) => [project.test.name, project.test]));

describe('vitest projects', () => {
  it('has one project per workspace package, found by folder', () => {
    const folders = ['packages', 'examples'].flatMap((parent) =>
      readdirSync(new URL(`../../../${parent}/`, import.meta.url)).map(
        (name) => `${parent}/${name}`,
      ),
    );
    const roots = projects.map((project) => project.test.root);
    for (const folder of [...folders, 'bench', 'docs']) {
      expect(
        roots.some((root) => root.endsWith(`/${folder}`)),
        folder,
      ).toBe(true);
    }
  });

  it('starts PostgreSQL only for packages that use it', () => {
    const withPostgres = [...byName]
      .filter(([, test]) => test.globalSetup.length > 0)
      .map(([name]) => name);
    for (const name of [
      '@petstore/core',
      '@petstore/storage-memory',
      '@petstore/express',
      '@petstore/hapi',
    ]) {
      expect(withPostgres, name).not.toContain(name);
    }
    for (const name of ['@petstore/storage-postgres', '@petstore/service', '@petstore/bench']) {
      expect(withPostgres, name).toContain(name);
    }
  });
});
