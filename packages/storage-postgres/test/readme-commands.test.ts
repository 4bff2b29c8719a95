import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { dropSchema, hostPool, postgresUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const README = fileURLToPath(new URL('../README.md', import.meta.url));

/** The sh block that follows `heading` in this package's README: its command line and the output it shows. */
function shBlockAfter(heading: string): { command: string; shown: string } {
  const text = readFileSync(README, 'utf8');
  const block =
    new RegExp(`${heading}[\\s\\S]*?\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(text)?.[1] ?? '';
  const [command = '', shown = ''] = block.split('\n');
  return { command, shown: shown.replace(/^# /, '') };
}

const admin = hostPool();
const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(admin, schema);
  await admin.end();
});

it('the migrate command the README gives for a clone works as shown, from the repository root', async () => {
  const { command, shown } = shBlockAfter('From a clone of this repository');
  expect(command).toMatch(/^DATABASE_URL=\S+ npx -y pnpm@10 migrate --schema petstore$/);
  const schema = uniqueSchema('readme');
  schemas.push(schema);
  const line = command
    .replace(/^DATABASE_URL=\S+/, 'DATABASE_URL="$TEST_DATABASE_URL"')
    .replace('--schema petstore', `--schema ${schema}`);
  const { stdout } = await run('bash', ['-c', line], {
    cwd: REPO,
    env: { ...process.env, TEST_DATABASE_URL: postgresUrl() },
  });
  expect(stdout).toContain(shown.replace('"petstore"', `"${schema}"`));
  const { rows } = await admin.query(`SELECT count(*)::int AS pets FROM "${schema}".pets`);
  expect(rows).toEqual([{ pets: 0 }]);
}, 120_000);
