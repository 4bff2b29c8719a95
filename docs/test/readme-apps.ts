import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CodeBlock, codeBlocks, REPO } from './readmes.js';

// The root README as a user follows it into an app of their own: each TypeScript snippet with
// the npm install lines written beside it, the steps of "In a new app", and its tsconfig.json.

const README = 'README.md';

export interface ReadmeApp {
  /** `README.md:<line>` of the snippet. */
  readonly name: string;
  readonly code: string;
  /** The `npm install ...` lines of the sh block just before the snippet, as written. */
  readonly installs: readonly string[];
}

const npmInstalls = (block: CodeBlock): string[] =>
  block.code.split('\n').filter((line) => line.startsWith('npm install '));

/** Every ```ts block of the root README, with the install lines of the sh block before it. */
export function readmeApps(): ReadmeApp[] {
  const shells = codeBlocks(README, ['sh']);
  return codeBlocks(README, ['ts']).map((block) => {
    const before = shells.filter((shell) => shell.line < block.line).at(-1);
    return {
      name: `${README}:${block.line}`,
      code: block.code,
      installs: before === undefined ? [] : npmInstalls(before),
    };
  });
}

/** "In a new app": its sh block (make the folder; build and run) and its tsconfig.json. */
export function newAppSteps(): { create: string; run: string; tsconfig: string } {
  const text = readFileSync(join(REPO, README), 'utf8');
  const section = text.slice(text.indexOf('### In a new app'));
  const lines = (/```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return {
    create: lines[0] ?? '',
    run: lines.at(-1) ?? '',
    tsconfig: /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? '',
  };
}
