import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStorage } from '../src/index.js';
import { runCli } from '../src/run-cli.js';
import { linesOf, spawnScript } from './support/children.js';
import { tempFolder } from './support/files.js';

const folder = tempFolder('cli');

/** The CLI in-process: its exit code and what it printed. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('petstore-sqlite', () => {
  it('migrate <db>: creates and migrates, then says it is up to date', async () => {
    const path = folder.file();
    expect(await cli('migrate', path)).toEqual({
      code: 0,
      out: `${path}: applied 001_init, 002_idempotency_keys (now version 2)`,
      err: '',
    });
    expect(await cli('migrate', path)).toMatchObject({
      code: 0,
      out: `${path} is up to date (version 2)`,
    });
  });

  it('backup <db> <destination>: a copy that opens and lists the pets', async () => {
    const path = folder.file();
    const storage = createSqliteStorage({ path });
    await storage.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
    const destination = join(folder.dir, 'copy.db');
    const result = await cli('backup', path, destination, '--busy-timeout-ms', '2000');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      new RegExp(
        `^backed up ${path} to ${destination} \\(\\d+ bytes, (backup-api|vacuum-into)\\)$`,
      ),
    );
    await storage.close();
    const copy = createSqliteStorage({ path: destination });
    expect(await copy.listPets({ limit: 10 })).toEqual([
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
    ]);
    await copy.close();
  });

  it('exits 1 with the reason when the work fails', async () => {
    const missing = join(folder.dir, 'missing.db');
    expect(await cli('backup', missing, join(folder.dir, 'x.db'))).toEqual({
      code: 1,
      out: '',
      err: `backup failed: cannot back up ${missing}: there is no such file`,
    });
    expect((await cli('migrate', folder.dir)).err).toMatch(/^migrate failed: .* is a directory/);
  });

  it('exits 2 with the usage on a usage error; --help prints it and exits 0', async () => {
    for (const argv of [
      [],
      ['restore', 'a.db'],
      ['backup', 'a.db'],
      ['migrate', 'a.db', 'b.db'],
      ['migrate', 'a.db', '--busy-timeout-ms', '1.5'],
      ['migrate', 'a.db', '--bogus'],
    ]) {
      const result = await cli(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err).toContain('Usage: petstore-sqlite <command>');
    }
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('backup <db> <destination>');
  });

  it('runs as a process too (src/cli.ts, as the bin does from dist), setting the exit code', async () => {
    const path = folder.file();
    const migrated = linesOf(spawnScript('../../src/cli.ts', ['migrate', path]));
    expect(await migrated.exited).toEqual([0, null]);
    expect(migrated.lines).toContain(
      `${path}: applied 001_init, 002_idempotency_keys (now version 2)`,
    );
    const refused = linesOf(spawnScript('../../src/cli.ts', ['backup', path]));
    expect(await refused.exited).toEqual([2, null]);
    expect(refused.stderr()).toContain('backup takes two paths, got 1');
  }, 30_000);
});
