import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createPetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterAll, beforeAll, expect, it } from 'vitest';

const run = promisify(execFile);
const DOCS = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(DOCS, 'node_modules', '.bin', name);

let dir: string;
let file: string;
beforeAll(async () => {
  // The document as a service with both environments serves it.
  const store = createPetStore({
    storage: createMemoryStorage(),
    apiKeys: ['lint-key-0123456789ab'],
    servers: [
      { url: 'https://api.petstore.test/v1', description: 'Production' },
      { url: 'https://staging.petstore.test/v1', description: 'Staging' },
    ],
  });
  dir = await mkdtemp(join(tmpdir(), 'petstore-lint-'));
  file = join(dir, 'openapi.json');
  // No ignore file: the document is linted exactly as it is served.
  await writeFile(file, JSON.stringify(store.openApiDocument, null, 2));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** What a linter printed on stdout, whatever its exit code (both exit non-zero on problems). */
const output = (command: string, args: string[], cwd = DOCS) =>
  run(command, args, { cwd, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? '',
  );

it('the served document has no error and no warning in Redocly (recommended rules)', async () => {
  const report = JSON.parse(
    await output(bin('redocly'), ['lint', 'openapi.json', '--format=json'], dir),
  ) as {
    problems: Array<{ ruleId: string; severity: string; message: string }>;
  };
  expect(report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`)).toEqual([]);
}, 60_000);

it('the served document has no error and no warning in Spectral (spectral:oas)', async () => {
  // Spectral prints a summary line after the JSON on stdout; its --output file holds only the JSON.
  const report = join(dir, 'spectral.json');
  await output(bin('spectral'), [
    'lint',
    file,
    '--ruleset',
    '.spectral.yaml',
    '--format',
    'json',
    '--output',
    report,
  ]);
  const problems = JSON.parse(await readFile(report, 'utf8')) as Array<{
    code: string;
    message: string;
    severity: number;
  }>;
  // Severity 0 error, 1 warning, 2 information, 3 hint.
  expect(problems.filter((p) => p.severity <= 1).map((p) => `${p.code}: ${p.message}`)).toEqual([]);
}, 60_000);
