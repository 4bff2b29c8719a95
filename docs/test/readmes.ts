import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

const SKIP = new Set(['node_modules', 'dist', '.git', '.tmp', '.snippets', '.changeset']);

/** Every README.md in the tree (not in dependencies or build output), repository-relative. */
export function readmes(dir = REPO): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return readmes(path);
    return entry.name === 'README.md' ? [relative(REPO, path)] : [];
  });
}

export interface CodeBlock {
  /** Repository-relative README path. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly language: string;
  readonly code: string;
}

/** The fenced code blocks of a README whose language is one of `languages`. */
export function codeBlocks(file: string, languages: readonly string[]): CodeBlock[] {
  const lines = readFileSync(join(REPO, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\w+)\s*$/.exec(lines[index] ?? '');
    if (open === null) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index] ?? ''); index++) {
      body.push(lines[index] ?? '');
    }
    const language = open[1] ?? '';
    if (languages.includes(language)) {
      blocks.push({ file, line: start + 1, language, code: `${body.join('\n')}\n` });
    }
  }
  return blocks;
}
