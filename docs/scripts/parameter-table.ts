/**
 * The parameters section of docs/contract.md, rendered from the operation table
 * (`packages/core/src/operations.ts`), the one definition of every parameter.
 * `pnpm --filter @petstore/docs contract` rewrites it; a test fails when it is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPERATIONS } from '../../packages/core/src/operations/operations.js';

export const CONTRACT = fileURLToPath(new URL('../contract.md', import.meta.url));
const START = '<!-- parameters: generated from the operation table, do not edit -->';
const END = '<!-- parameters: end -->';

export function parameterTable(): string {
  const rows = OPERATIONS.flatMap((operation) =>
    operation.parameters.map((parameter) => {
      const absent =
        parameter.in === 'path'
          ? 'required'
          : parameter.absent === undefined
            ? 'not applied'
            : `\`${String(parameter.absent)}\``;
      return `| \`${operation.method} ${operation.path}\` | \`${parameter.name}\` | ${parameter.in} | ${parameter.name} ${parameter.rule} | ${absent} |`;
    }),
  );
  return [
    START,
    '| operation | parameter | in | rule (else `400 invalid_request` naming it) | when absent |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    END,
  ].join('\n');
}

/** The contract with its parameters section as the table says it. */
export function contractWithTable(text: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start === -1 || end === -1) throw new Error(`docs/contract.md lacks the ${START} markers`);
  return text.slice(0, start) + parameterTable() + text.slice(end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = join(CONTRACT);
  writeFileSync(path, contractWithTable(readFileSync(path, 'utf8')));
  console.log(`wrote the parameters section of ${path}`);
}
