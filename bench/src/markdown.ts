/** Markdown helpers RESULTS.md's sections share (report.ts, overload-report.ts). */
import type { Target } from './results.js';

export const fmt = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';

export function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** PASS/FAIL/noisy in a full run; marked `*` in a smoke run, which enforces nothing. */
export const verdict = (
  { pass, noisy }: Pick<Target, 'pass' | 'noisy'>,
  enforced: boolean,
): string => {
  const word = noisy === true ? 'noisy' : pass ? 'PASS' : 'FAIL';
  if (!enforced) return `${word.toLowerCase()}*`;
  return word === 'FAIL' ? '**FAIL**' : word;
};
