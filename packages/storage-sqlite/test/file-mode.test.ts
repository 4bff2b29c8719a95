import { chmodSync, existsSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStorage, SqliteOpenError } from '../src/index.js';
import { tempFolder } from './support/files.js';

// `fileMode`: the database and its -wal and -shm are readable by whom the caller says, whatever
// the umask and whatever the files were before; a link to nothing is not followed to create one.
const folder = tempFolder('mode');
const pet = { name: 'Rex', categoryId: 1, status: 'available' } as const;
const modeOf = (path: string): number => statSync(path).mode & 0o777;
const filesOf = (path: string) => [path, `${path}-wal`, `${path}-shm`];

let umask = 0;
beforeEach(() => {
  // The most open umask: without the option SQLite makes these files 0644.
  umask = process.umask(0);
});
afterEach(() => {
  process.umask(umask);
});

describe('fileMode', () => {
  it('a new file and the -wal and -shm SQLite makes beside it get the mode, not the umask', async () => {
    const path = folder.file();
    const storage = createSqliteStorage({ path, fileMode: 0o600 });
    await storage.createPet(pet);
    expect(filesOf(path).map(modeOf)).toEqual([0o600, 0o600, 0o600]);
    await storage.close();
    expect(modeOf(path)).toBe(0o600);
  });

  it('without it, SQLite follows the umask (what the option is for)', async () => {
    const path = folder.file();
    const storage = createSqliteStorage({ path });
    await storage.createPet(pet);
    expect(filesOf(path).map(modeOf)).toEqual([0o644, 0o644, 0o644]);
    await storage.close();
  });

  it('an existing file readable by all, and the companions a crash left, are set to the mode', async () => {
    const path = folder.file();
    const first = createSqliteStorage({ path });
    await first.createPet(pet);
    await first.close();
    writeFileSync(`${path}-wal`, '');
    writeFileSync(`${path}-shm`, '');
    for (const file of filesOf(path)) chmodSync(file, 0o666);

    const storage = createSqliteStorage({ path, fileMode: 0o600 });
    expect(filesOf(path).map(modeOf)).toEqual([0o600, 0o600, 0o600]);
    expect((await storage.listPets({ limit: 5 })).map((p) => p.name)).toEqual(['Rex']);
    await storage.close();
  });

  it('refuses what is not a mode', () => {
    expect(() => createSqliteStorage({ path: folder.file(), fileMode: 0o1777 })).toThrow(
      /fileMode must be a permission mode/,
    );
  });
});

describe('a symbolic link to nothing', () => {
  it.each([
    ['without fileMode', undefined],
    ['with fileMode', 0o600],
  ])('is refused %s, and its target is not created', (_label, fileMode) => {
    const target = join(folder.dir, `elsewhere-${String(fileMode)}.db`);
    const path = folder.file();
    symlinkSync(target, path);
    let thrown: unknown;
    try {
      createSqliteStorage({ path, ...(fileMode === undefined ? {} : { fileMode }) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SqliteOpenError);
    expect((thrown as SqliteOpenError).problem).toBe('not-a-file');
    expect((thrown as SqliteOpenError).message).toContain(
      `${path} is a symbolic link to ${target}, which does not exist`,
    );
    expect(existsSync(target)).toBe(false);
  });
});
