import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/run-cli.js';
import { linesOf, spawnScript } from './support/children.js';
import { tempFolder } from './support/files.js';

// The README's TypeScript is the example files, word for word, and they run; its CLI lines are
// commands the CLI takes.
const folder = tempFolder('readme');
const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = (name: string) =>
  readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8');
const blocks = (language: string) =>
  [...README.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (match) => match[1] ?? '',
  );

describe('README', () => {
  it('shows examples/serve.ts and examples/backup.ts as they are, and no other TypeScript', () => {
    expect(blocks('ts')).toEqual([example('serve.ts'), example('backup.ts')]);
  });

  it('examples/serve.ts serves from a new file, and closes it on SIGTERM', async () => {
    const env = { ...process.env, PETS_DB: join(folder.dir, 'served.db'), PORT: '0' };
    const child = spawnScript('../../examples/serve.ts', [], env);
    const output = linesOf(child);
    try {
      const line = await output.next((l) => l.startsWith('pet store on '));
      const base = /http:\/\/\S+\/v1/.exec(line)?.[0] ?? '';
      expect(line).toContain(`pets in ${env.PETS_DB}`);
      const auth = { authorization: 'Bearer my-secret-key-4f9a2c71' };
      const created = await fetch(`${base}/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      });
      expect(created.status).toBe(201);
      const listed = await fetch(`${base}/pets?limit=5`, { headers: auth });
      expect(await listed.json()).toEqual([
        { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
      ]);
      child.kill('SIGTERM');
      expect(await output.exited).toEqual([0, null]);
      expect(output.lines).toContain('closed');
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  it('examples/backup.ts migrates, copies and restores as its comments say', async () => {
    const env = { ...process.env, PETS_DB: join(folder.dir, 'backed-up.db') };
    const output = linesOf(spawnScript('../../examples/backup.ts', [], env));
    expect(await output.exited, output.stderr()).toEqual([0, null]);
    const text = output.lines.join('\n');
    expect(text).toContain("applied: [ '001_init', '002_idempotency_keys' ], version: 2");
    expect(text).toContain(`destination: '${env.PETS_DB}.backup'`);
    expect(text).toMatch(/method: '(backup-api|vacuum-into)'/);
    expect(text).toContain("{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }");
  }, 30_000);

  it('every petstore-sqlite command line it shows is one the CLI takes', async () => {
    const commands = blocks('sh')
      .flatMap((block) => block.split('\n'))
      .map((line) => /petstore-sqlite (.+?)(?:\s+#.*)?$/.exec(line)?.[1])
      .filter((args): args is string => args !== undefined && !args.includes('--help'));
    expect(commands.length).toBeGreaterThanOrEqual(2);
    const db = join(folder.dir, 'pets.db');
    for (const args of commands) {
      const argv = args
        .split(/\s+/)
        .map((arg) => (arg.endsWith('.db') ? join(folder.dir, arg.split('/').at(-1) ?? arg) : arg));
      const err: string[] = [];
      const code = await runCli(
        argv,
        () => undefined,
        (line) => err.push(line),
      );
      expect(code, `${args}: ${err.join('\n')}`).toBe(0);
    }
    expect(db).toBeTruthy();
  });
});
