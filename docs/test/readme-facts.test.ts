import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACT, contractWithTable } from '../scripts/parameter-table.js';
import { REPO, readmes } from './readmes.js';

// What the READMEs say that code or other files can contradict, kept in step by test.
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

describe('the READMEs and docs/contract.md', () => {
  it('give the contract a section for every group of conformance cases', () => {
    const contract = read('docs/contract.md');
    const groups = readdirSync(join(REPO, 'packages/conformance/src/conformance')).filter((name) =>
      /^cases-.+\.ts$/.test(name),
    );
    expect(groups.length).toBeGreaterThan(5);
    expect(groups.filter((group) => !contract.includes(`(\`${group}\`)`))).toEqual([]);
  });

  it('show every parameter as the operation table defines it (pnpm --filter @petstore/docs contract)', () => {
    const contract = readFileSync(CONTRACT, 'utf8');
    expect(contract).toBe(contractWithTable(contract));
  });

  it('cite no file outside the repository (the old shared/spec)', () => {
    const citing = readmes().filter((file) => read(file).includes('shared/spec'));
    expect(citing).toEqual([]);
  });

  it('link only absolutely from a published package README, which npm shows alone', () => {
    const relative = readmes()
      .filter((file) => file.startsWith('packages/'))
      .flatMap((file) =>
        [...read(file).matchAll(/\]\(([^)]+)\)/g)]
          .map((match) => match[1] ?? '')
          .filter((target) => !/^(https?:|#)/.test(target))
          .map((target) => `${file}: ${target}`),
      );
    expect(relative).toEqual([]);
  });

  it('list every createPetStore option in the core README table, and no other', () => {
    const options = read('packages/core/src/options/options.ts');
    const body = /export interface PetStoreOptions \{([\s\S]*?)\n\}/.exec(options)?.[1] ?? '';
    const declared = [...body.matchAll(/^ {2}readonly (\w+)\??:/gm)].map((match) => match[1]);
    const section = read('packages/core/README.md').split('\n## Options\n')[1]?.split('\n## ')[0];
    const table = [...(section ?? '').matchAll(/^\| `(\w+)(?:\.\w+)?` +\|/gm)].map(
      (match) => match[1],
    );
    expect(declared.length).toBeGreaterThan(5);
    expect([...new Set(table)].sort()).toEqual([...declared].sort());
  });

  it('give the bench the same duration in the root and the bench README', () => {
    const minutes = (path: string) =>
      [...read(path).matchAll(/bench\b.*?about (\d+) minutes/g)].map((match) => match[1]);
    const root = minutes('README.md');
    expect(root).toHaveLength(1);
    expect(minutes('bench/README.md')).toEqual(root);
  });
});
