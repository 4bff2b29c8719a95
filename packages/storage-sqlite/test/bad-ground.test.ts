import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStorage, type OpenProblem, SqliteOpenError } from '../src/index.js';
import { createSqliteStorageWith } from '../src/storage.js';
import { tempFolder } from './support/files.js';
import { holdLock, makeReadOnly } from './support/ground.js';

// Ground a storage cannot serve on is refused when it opens, with a SqliteOpenError that says
// what is wrong and names the path: never a crash, never a failure left for the first request.
const folder = tempFolder('ground');
const pet = { name: 'Rex', categoryId: 1, status: 'available' } as const;

/** What opening `path` throws: a SqliteOpenError, with the problem and the path in its message. */
function refusal(open: () => unknown, path: string, problem: OpenProblem): SqliteOpenError {
  let thrown: unknown;
  try {
    open();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(SqliteOpenError);
  const error = thrown as SqliteOpenError;
  expect({ problem: error.problem, path: error.path }).toEqual({ problem, path });
  expect(error.message).toContain(path);
  return error;
}

/** A migrated database with `count` pets in it, closed (its WAL checkpointed into the file). */
async function databaseWithPets(path: string, count: number): Promise<void> {
  const storage = createSqliteStorage({ path });
  for (let n = 0; n < count; n += 1) {
    await storage.createPet({ name: `pet-${n}-${'x'.repeat(200)}`, categoryId: 1, status: 'sold' });
  }
  await storage.close();
}

const undos: (() => void)[] = [];
afterEach(() => {
  for (const undo of undos.splice(0)) undo();
});

describe('the path', () => {
  it('a directory where the file should be', () => {
    const path = folder.file('a-directory');
    mkdirSync(path);
    const error = refusal(() => createSqliteStorage({ path }), path, 'directory');
    expect(error.message).toMatch(/is a directory; path must name the database file/);
  });

  it('a folder that does not exist', () => {
    const path = join(folder.dir, 'missing', 'pets.db');
    const error = refusal(() => createSqliteStorage({ path }), path, 'no-folder');
    expect(error.message).toContain(`the folder ${join(folder.dir, 'missing')} does not exist`);
  });

  it('an in-memory name is refused: the file is the point', () => {
    expect(() => createSqliteStorage({ path: ':memory:' })).toThrow(/storage-memory/);
  });
});

describe('read-only ground', () => {
  it('a read-only file', async (context) => {
    const path = folder.file();
    await databaseWithPets(path, 1);
    const readOnly = makeReadOnly(path, false);
    if ('impossible' in readOnly) return context.skip(readOnly.impossible);
    undos.push(readOnly.undo);
    const error = refusal(() => createSqliteStorage({ path }), path, 'read-only');
    expect(error.message).toMatch(/is read-only: the storage writes to it/);
  });

  it('a read-only folder, for a new file', (context) => {
    const dir = join(folder.dir, 'read-only-new');
    mkdirSync(dir);
    const readOnly = makeReadOnly(dir, true);
    if ('impossible' in readOnly) return context.skip(readOnly.impossible);
    undos.push(readOnly.undo);
    const path = join(dir, 'pets.db');
    const error = refusal(() => createSqliteStorage({ path }), path, 'read-only');
    expect(error.message).toContain(`the folder ${dir} is read-only`);
  });

  it('a read-only folder, for an existing file (SQLite must create -wal and -shm beside it)', async (context) => {
    const dir = join(folder.dir, 'read-only-existing');
    mkdirSync(dir);
    const path = join(dir, 'pets.db');
    await databaseWithPets(path, 1);
    const readOnly = makeReadOnly(dir, true);
    if ('impossible' in readOnly) return context.skip(readOnly.impossible);
    undos.push(readOnly.undo);
    const error = refusal(() => createSqliteStorage({ path }), path, 'read-only');
    expect(error.message).toContain(`${path}-wal`);
  });

  it('a file SQLite can only read (a read-only connection stands in for it): refused at open, not at the first create', async () => {
    const path = folder.file();
    await databaseWithPets(path, 1);
    for (const migrate of [true, false]) {
      const error = refusal(
        () =>
          createSqliteStorageWith(
            { path, migrate },
            (file) => new DatabaseSync(file, { readOnly: true }),
          ),
        path,
        'read-only',
      );
      expect(error.message).toMatch(/cannot be written/);
    }
  });
});

describe('files that are not a sound database', () => {
  it('random bytes', () => {
    const path = folder.file();
    writeFileSync(path, randomBytes(16_384));
    const error = refusal(() => createSqliteStorage({ path }), path, 'not-a-database');
    expect(error.message).toMatch(/is not a SQLite database/);
  });

  it('a real database with garbage written over page 3 and on: PRAGMA quick_check at open refuses it', async () => {
    const path = folder.file();
    await databaseWithPets(path, 300);
    const pageSize = 4096;
    expect(statSync(path).size).toBeGreaterThan(20 * pageSize);
    const fd = openSync(path, 'r+');
    writeSync(fd, randomBytes(3 * pageSize), 0, 3 * pageSize, 2 * pageSize);
    closeSync(fd);
    const error = refusal(() => createSqliteStorage({ path }), path, 'damaged');
    expect(error.message).toMatch(/is damaged.*restore it from a backup/);
  });

  it('without the check (checkOnOpen: false) the damage surfaces on a request, as a rejection', async () => {
    const path = folder.file();
    await databaseWithPets(path, 300);
    const fd = openSync(path, 'r+');
    // Overwrite the pets table's pages past the first few, keeping the schema pages intact.
    writeSync(fd, randomBytes(8 * 4096), 0, 8 * 4096, 10 * 4096);
    closeSync(fd);
    const storage = createSqliteStorage({ path, checkOnOpen: false });
    try {
      const reading = (async () => {
        for (let afterId = 0; afterId < 400; afterId += 50)
          await storage.listPets({ afterId, limit: 50 });
      })();
      await expect(reading).rejects.toThrow(/malformed|corrupt|not a database/i);
    } finally {
      await storage.close();
    }
  });
});

describe('a file another program keeps locked', () => {
  it('BEGIN EXCLUSIVE held in WAL mode: open waits busyTimeoutMs, then refuses, naming the lock and the timeout', async () => {
    const path = folder.file();
    await databaseWithPets(path, 1);
    const holder = await holdLock(path, { wal: true });
    try {
      const started = performance.now();
      const error = refusal(
        () => createSqliteStorage({ path, busyTimeoutMs: 300 }),
        path,
        'locked',
      );
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      expect(error.message).toMatch(/locked by another connection.*busyTimeoutMs \(300 ms\)/);
    } finally {
      await holder.release();
    }
    // Once the other program lets go, the file opens.
    const storage = createSqliteStorage({ path, busyTimeoutMs: 300 });
    expect(await storage.listPets({ limit: 5 })).toHaveLength(1);
    await storage.close();
  });

  it('BEGIN EXCLUSIVE held in rollback-journal mode (no reading at all): refused after the busy timeout', async () => {
    const path = folder.file();
    const holder = await holdLock(path, { wal: false });
    try {
      refusal(() => createSqliteStorage({ path, busyTimeoutMs: 200 }), path, 'locked');
    } finally {
      await holder.release();
    }
  });

  it('a lock released within the busy timeout is waited for: the open succeeds', async () => {
    const path = folder.file();
    await databaseWithPets(path, 1);
    const holder = await holdLock(path, { wal: true, releaseAfterMs: 300 });
    try {
      // Synchronous: this thread waits in SQLite's busy handler while the other process holds on.
      const storage = createSqliteStorage({ path, busyTimeoutMs: 10_000 });
      await storage.createPet(pet);
      expect(await storage.listPets({ limit: 5 })).toHaveLength(2);
      await storage.close();
    } finally {
      await holder.release();
    }
  });
});
