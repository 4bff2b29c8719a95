import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './readmes.js';

// docs/architecture.md is a map: every place it names must exist, and every folder of the
// workspace and of the core must be on it.
const page = readFileSync(join(REPO, 'docs/architecture.md'), 'utf8');
const subfolders = (dir: string): string[] =>
  readdirSync(join(REPO, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules')
    .map((entry) => `${dir}/${entry.name}`);

describe('docs/architecture.md', () => {
  it('names only paths that exist', () => {
    const named = [
      ...page.matchAll(/`((?:packages|examples|tools|bench|docs|deploy)\/[\w./-]+)`/g),
    ];
    expect(named.length).toBeGreaterThan(20);
    const missing = named
      .map((match) => (match[1] ?? '').replace(/\/$/, ''))
      .filter((path) => !existsSync(join(REPO, path)));
    expect(missing).toEqual([]);
  });

  it('has a row for every workspace folder', () => {
    const folders = ['packages', 'examples', 'tools'].flatMap(subfolders);
    const rows = page.split('\n').filter((line) => line.startsWith('| `'));
    // A row's first cell names the folder, or lists it beside a sibling: `packages/express`, `hapi`.
    const firstCells = rows.map((row) => row.split('|')[1] ?? '');
    const shown = (folder: string) => {
      const [parent, name] = folder.split('/');
      return firstCells.some(
        (cell) =>
          cell.includes(`\`${folder}\``) ||
          (cell.includes(`\`${parent}/`) && cell.includes(`\`${name}\``)),
      );
    };
    expect(folders.filter((folder) => !shown(folder))).toEqual([]);
  });

  it("lists the core's folders exactly, in the order they may import each other", () => {
    const listed = [...page.matchAll(/^\| `(\w+)\/` \|/gm)].map((match) => match[1]);
    const present = subfolders('packages/core/src').map((dir) => dir.split('/').pop());
    expect([...listed].sort()).toEqual([...present].sort());
  });

  it("has the core's folders import only from those listed before them", () => {
    const order = [...page.matchAll(/^\| `(\w+)\/` \|/gm)].map((match) => match[1] ?? '');
    const rank = (folder: string) => (folder === '' ? order.length : order.indexOf(folder));
    const src = join(REPO, 'packages/core/src');
    const folderOf = (file: string) => {
      const [first = '', ...rest] = relative(src, file).split('/');
      return rest.length === 0 ? '' : first;
    };
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
      );
    const upward = files(src).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)]
        .map((match) => resolve(dirname(file), `${match[1]}.ts`))
        .filter((target) => rank(folderOf(target)) > rank(folderOf(file)))
        .map((target) => `${relative(src, file)} -> ${relative(src, target)}`),
    );
    expect(order.length).toBeGreaterThan(5);
    expect(upward).toEqual([]);
  });

  it("lists the service's modules exactly, and the service imports no framework", () => {
    const section = page.slice(
      page.indexOf("## The service's modules"),
      page.indexOf("## The core's"),
    );
    const listed = [...section.matchAll(/`([\w-]+\.ts)`/g)].map((match) => match[1]);
    const src = join(REPO, 'packages/service/src');
    const modules = readdirSync(src).filter((name) => name !== 'index.ts');
    expect([...new Set(listed)].sort()).toEqual(modules.sort());
    const frameworks = /from '(?:express|@hapi\/hapi|fastify|@petstore\/(?:express|hapi|fastify))'/;
    const importing = modules.filter((name) =>
      frameworks.test(readFileSync(join(src, name), 'utf8')),
    );
    expect(importing).toEqual([]);
  });
});
