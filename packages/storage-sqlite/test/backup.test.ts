import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { createPetStore, type Pet } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { describe, expect, it } from 'vitest';
import { onlineBackup } from '../src/driver.js';
import { backup, createSqliteStorage, type SqliteStorage } from '../src/index.js';
import { tempFolder } from './support/files.js';

const folder = tempFolder('backup');
const KEY = 'backup-test-key-01234567';

async function storageWithPets(count: number): Promise<SqliteStorage> {
  const storage = createSqliteStorage({ path: folder.file() });
  for (let n = 0; n < count; n += 1) {
    await storage.createPet({ name: `pet-${n}`, categoryId: (n % 9) + 1, status: 'available' });
  }
  return storage;
}

async function allPets(storage: SqliteStorage): Promise<Pet[]> {
  const pets: Pet[] = [];
  for (let afterId = 0; ; ) {
    const page = await storage.listPets({ afterId, limit: 100 });
    const last = page.at(-1);
    if (last === undefined) return pets;
    pets.push(...page);
    afterId = last.id;
  }
}

/** Restores a copy the way an operator would: open it as the storage, and serve from it. */
async function serveFrom(path: string): Promise<{ status: number; pets: Pet[] }> {
  const storage = createSqliteStorage({ path });
  try {
    const store = createPetStore({ storage, apiKeys: [KEY] });
    const answer = await store.handle({
      method: 'GET',
      path: '/pets',
      query: 'limit=100',
      headers: { authorization: `Bearer ${KEY}` },
    });
    return { status: answer.status, pets: JSON.parse(answer.body ?? '[]') as Pet[] };
  } finally {
    await storage.close();
  }
}

describe('backup()', () => {
  it('node:sqlite has backup() on this Node (22.16 and later), and it is the default', () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    expect(onlineBackup !== undefined).toBe(major > 22 || minor >= 16);
  });

  for (const method of ['backup-api', 'vacuum-into'] as const) {
    // node:sqlite's backup() is there from Node 22.16: on 22.13 to 22.15, VACUUM INTO alone.
    it.skipIf(method === 'backup-api' && onlineBackup === undefined)(
      `${method}: copies a serving storage while it keeps writing; the copy opens and serves`,
      async () => {
        const storage = await storageWithPets(500);
        const destination = join(folder.dir, `copy-${method}.db`);
        // Writes go on while the copy is made: the copy is a consistent snapshot.
        const copying = backup(storage, destination, { method });
        const during: Promise<Pet>[] = [];
        for (let n = 0; n < 50; n += 1) {
          during.push(storage.createPet({ name: `during-${n}`, categoryId: 1, status: 'sold' }));
        }
        const result = await copying;
        await Promise.all(during);
        expect(result).toMatchObject({ destination, method });
        expect(result.bytes).toBeGreaterThan(4096);
        // One self-contained file: no WAL or leftovers beside it.
        expect(readdirSync(folder.dir).filter((name) => name.startsWith(`copy-${method}`))).toEqual(
          [`copy-${method}.db`],
        );

        const served = await serveFrom(destination);
        expect(served.status).toBe(200);
        expect(served.pets.slice(0, 3).map((pet) => pet.name)).toEqual(['pet-0', 'pet-1', 'pet-2']);
        const copy = createSqliteStorage({ path: destination });
        const copied = await allPets(copy);
        expect(copied.length).toBeGreaterThanOrEqual(500);
        // The same pets, in the same order, as the source had.
        expect(copied).toEqual((await allPets(storage)).slice(0, copied.length));
        await copy.close();
        await storage.close();
      },
    );
  }

  it('copies a file by its path (a connection of its own), while a storage has it open', async () => {
    const storage = await storageWithPets(20);
    const destination = join(folder.dir, 'by-path.db');
    const result = await backup(storage.path, destination);
    expect(result.destination).toBe(destination);
    expect((await serveFrom(destination)).pets).toHaveLength(20);
    await storage.close();
  });

  it('replaces an existing destination whole, and leaves nothing half-written behind', async () => {
    const storage = await storageWithPets(5);
    const dir = join(folder.dir, 'replace');
    mkdirSync(dir);
    const destination = join(dir, 'nightly.db');
    writeFileSync(destination, 'the previous night');
    await backup(storage, destination);
    expect((await serveFrom(destination)).pets).toHaveLength(5);
    await storage.createPet({ name: 'sixth', categoryId: 1, status: 'sold' });
    await backup(storage, destination);
    expect((await serveFrom(destination)).pets).toHaveLength(6);
    expect(readdirSync(dir)).toEqual(['nightly.db']);
    await storage.close();
  });

  it('refuses what it cannot do, clearly, creating nothing', async () => {
    const storage = await storageWithPets(1);
    await expect(backup(storage, storage.path)).rejects.toThrow(/onto itself/);
    await expect(backup(storage.path, storage.path)).rejects.toThrow(/onto itself/);
    const missing = join(folder.dir, 'no-such.db');
    await expect(backup(missing, join(folder.dir, 'x.db'))).rejects.toThrow(
      `cannot back up ${missing}: there is no such file`,
    );
    expect(existsSync(missing)).toBe(false);
    await expect(backup(storage, join(folder.dir, 'nowhere', 'x.db'))).rejects.toThrow(
      /the folder .*nowhere does not exist/,
    );
    await expect(backup(createMemoryStorage(), join(folder.dir, 'y.db'))).rejects.toThrow(
      /takes a storage from createSqliteStorage, or a file path/,
    );
    expect(existsSync(join(folder.dir, 'x.db'))).toBe(false);
    // A closed storage's file is still there to copy.
    await storage.close();
    await backup(storage, join(folder.dir, 'after-close.db'));
    expect((await serveFrom(join(folder.dir, 'after-close.db'))).pets).toHaveLength(1);
  });

  it.skipIf(onlineBackup === undefined)(
    'the copy is checked: a copy that fails PRAGMA quick_check never takes the destination name',
    async () => {
      const storage = await storageWithPets(300);
      await storage.close();
      // A source with garbage over some of its pages: the page copy carries the damage over.
      const fd = openSync(storage.path, 'r+');
      writeSync(fd, randomBytes(4 * 4096), 0, 4 * 4096, 4 * 4096);
      closeSync(fd);
      const destination = join(folder.dir, 'checked.db');
      await expect(backup(storage.path, destination, { method: 'backup-api' })).rejects.toThrow(
        /quick_check|malformed/,
      );
      expect(existsSync(destination)).toBe(false);
      expect(readdirSync(folder.dir).filter((name) => name.includes('partial'))).toEqual([]);
    },
  );
});
