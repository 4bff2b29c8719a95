import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks, REPO, readmes } from './readmes.js';

// Every ```ts block of every README.md in the tree, each compiled as its own
// module under the repository's strictest settings (tsconfig.base.json:
// strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess). Imports
// resolve from this package, which depends on everything a README may use.
// A snippet whose first line names a file of the tree (`// examples/x/src/main.ts`)
// shows that file: it is checked beside it, so its relative imports resolve there.
const OUT = join(REPO, 'docs/.snippets');
const blocks = readmes().flatMap((file) => codeBlocks(file, ['ts', 'typescript']));
const fileOf = (index: number) => `snippet-${index}.ts`;

function placeOf(code: string, index: number): string {
  const shown = /^\/\/ ([\w./-]+\.ts)\b/.exec(code)?.[1];
  return shown !== undefined && existsSync(join(REPO, shown))
    ? join(REPO, dirname(shown), `.readme-${fileOf(index)}`)
    : join(OUT, fileOf(index));
}
const places = blocks.map((block, index) => placeOf(block.code, index));

let diagnostics = '';

beforeAll(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  blocks.forEach((block, index) => {
    writeFileSync(places[index] ?? '', `// ${block.file}:${block.line}\n${block.code}`);
  });
  writeFileSync(
    join(OUT, 'tsconfig.json'),
    JSON.stringify({ extends: '../../tsconfig.base.json', files: places }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    await promisify(execFile)(process.execPath, [
      tsc,
      '-p',
      join(OUT, 'tsconfig.json'),
      '--pretty',
      'false',
    ]);
  } catch (error) {
    diagnostics = String((error as { stdout?: unknown }).stdout ?? error);
  }
}, 120_000);

afterAll(() => {
  for (const place of places) rmSync(place, { force: true });
});

const mentions = (line: string, index: number) =>
  new RegExp(`(^|[/\\\\.-])${fileOf(index).replace('.', '\\.')}\\(`).test(line);

describe('TypeScript in the READMEs', () => {
  it('finds the snippets (a README without any would make this suite vacuous)', () => {
    expect(blocks.length).toBeGreaterThan(10);
  });

  it.each(blocks.map((block, index) => ({ ...block, index, name: `${block.file}:${block.line}` })))(
    '$name type-checks',
    ({ index }) => {
      const errors = diagnostics.split('\n').filter((line) => mentions(line, index));
      expect(errors).toEqual([]);
    },
  );

  it('leaves no error outside the snippets (the tsconfig itself)', () => {
    const stray = diagnostics
      .split('\n')
      .filter((line) => line.trim() !== '' && !/snippet-\d+\.ts/.test(line));
    expect(stray).toEqual([]);
  });
});
