import {
  createPetStore,
  type IdempotencyClaim,
  isStorageUnavailable,
  type PetStorage,
  StorageUnavailableError,
} from '@petstore/core';
import { describe, expect, it } from 'vitest';
import type { Database } from '../src/driver.js';
import { createSqliteStorage } from '../src/index.js';
import { openDatabase } from '../src/open.js';
import { resolveOptions, type SqliteStorageOptions } from '../src/options.js';
import { storageOn } from '../src/storage.js';
import { toStorageError } from '../src/unavailable.js';
import { tempFolder } from './support/files.js';
import { holdLock } from './support/ground.js';
import { inTransaction } from './support/transaction.js';

const folder = tempFolder('unavailable');
const KEY = 'unavailable-test-key-0123';
const pet = { name: 'Rex', categoryId: 1, status: 'available' } as const;

/** A storage and its connection, so a test can set a page limit on it first. */
function open(options: Partial<SqliteStorageOptions> = {}): { storage: PetStorage; db: Database } {
  const resolved = resolveOptions({ path: folder.file(), ...options });
  const opened = openDatabase(resolved);
  return { storage: storageOn(opened, resolved), db: opened.db };
}

const count = (db: Database, table: string): number =>
  Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.n);

const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );

const claim = (n: number): IdempotencyClaim => ({
  scope: `scope-${'s'.repeat(200)}`,
  key: `key-${n}-${'k'.repeat(240)}`,
  fingerprint: `fingerprint-${'f'.repeat(1500)}`,
  retentionMs: 60_000,
});

/** Creates big pets until the file is full: how many fitted. The refusal is a 503, nothing kept. */
async function fillUp(storage: PetStorage): Promise<number> {
  for (let n = 0; n < 10_000; n += 1) {
    try {
      await storage.createPet({ ...pet, name: 'x'.repeat(256) });
    } catch (error) {
      expect(isStorageUnavailable(error)).toBe(true);
      return n;
    }
  }
  throw new Error('the file never filled up');
}

describe('a full disk (SQLITE_FULL, simulated with PRAGMA max_page_count)', () => {
  it('creates reject with StorageUnavailableError, and a pet is never kept without its claim', async () => {
    const { storage, db } = open({ retryAfterSeconds: 7 });
    const pages = Number(db.prepare('PRAGMA page_count').get()?.page_count);
    db.exec(`PRAGMA max_page_count = ${pages + 12}`);
    let created = 0;
    let refused = 0;
    for (let n = 0; n < 400 && refused < 20; n += 1) {
      const input = { ...pet, name: `pet-${n}-${'n'.repeat(240)}` };
      try {
        await storage.createPetIdempotent(input, claim(n));
        created += 1;
      } catch (error) {
        expect(isStorageUnavailable(error)).toBe(true);
        expect(error).toMatchObject({ retryAfterSeconds: 7 });
        expect((error as Error).message).toMatch(/database or disk is full \(SQLITE_FULL\)/);
        refused += 1;
      }
      // Both or neither, whichever statement of the transaction hit the limit.
      expect(count(db, 'pets')).toBe(count(db, 'idempotency_keys'));
    }
    expect(created).toBeGreaterThan(0);
    expect(refused).toBe(20);
    expect(count(db, 'pets')).toBe(created);

    // Plain creates too, once the last pages are used up: nothing is written, no transaction left.
    const plain = await fillUp(storage);
    expect(count(db, 'pets')).toBe(created + plain);
    expect(inTransaction(db)).toBe(false);

    // Reads still answer; and once there is room again, writes do too, without a reopen.
    expect(await storage.listPets({ limit: 5 })).toHaveLength(5);
    db.exec(`PRAGMA max_page_count = ${pages + 1000}`);
    expect((await storage.createPet(pet)).id).toBe(created + plain + 1);
    await storage.close();
  });

  it('the API answers 503 service_unavailable with Retry-After', async () => {
    const { storage, db } = open({ retryAfterSeconds: 7 });
    const pages = Number(db.prepare('PRAGMA page_count').get()?.page_count);
    db.exec(`PRAGMA max_page_count = ${pages + 2}`);
    const filled = await fillUp(storage);
    const store = createPetStore({ storage, apiKeys: [KEY] });
    const answer = await store.handle({
      method: 'POST',
      path: '/pets',
      query: '',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `${'x'.repeat(256)}`, categoryId: 1 }),
    });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('7');
    expect(JSON.parse(answer.body ?? '{}')).toMatchObject({ code: 'service_unavailable' });
    expect(count(db, 'pets')).toBe(filled);
    await storage.close();
  });
});

describe('the write lock held by another process past busyTimeoutMs', () => {
  it('writes reject with StorageUnavailableError after the busy timeout; reads and replays still answer', async () => {
    const { storage, db } = open({ busyTimeoutMs: 200 });
    const first = await storage.createPetIdempotent(pet, { ...claim(1), retentionMs: 60_000 });
    expect(first.kind).toBe('created');
    // The file's path (node:sqlite's `location()` is there from Node 22.16 only).
    const path = String(db.prepare('PRAGMA database_list').get()?.file ?? '');
    const holder = await holdLock(path, { wal: true });
    try {
      const started = performance.now();
      const refused = await rejection(storage.createPet(pet));
      expect(performance.now() - started).toBeGreaterThanOrEqual(150);
      expect(isStorageUnavailable(refused)).toBe(true);
      expect((refused as Error).message).toMatch(/SQLITE_BUSY/);
      const keyed = await rejection(storage.createPetIdempotent(pet, claim(2)));
      expect(isStorageUnavailable(keyed)).toBe(true);
      // WAL: readers never wait for a writer. A live claim replays without the write lock.
      expect(await storage.listPets({ limit: 10 })).toHaveLength(1);
      expect(await storage.getPet(1)).toMatchObject({ id: 1 });
      expect((await storage.createPetIdempotent(pet, claim(1))).kind).toBe('replayed');
    } finally {
      await holder.release();
    }
    expect((await storage.createPet(pet)).id).toBe(2);
    await storage.close();
  });
});

describe('mapping', () => {
  it('a closed storage rejects every call as unavailable (503 while shutting down), and close stays harmless', async () => {
    const storage = createSqliteStorage({ path: folder.file() });
    await storage.close();
    for (const call of [
      storage.createPet(pet),
      storage.getPet(1),
      storage.listPets({ limit: 1 }),
      storage.listOrders({ limit: 1 }),
    ]) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(StorageUnavailableError);
      expect((error as Error).message).toMatch(/closed/);
    }
    await expect(storage.close()).resolves.toBeUndefined();
  });

  it('only passing conditions are 503: a constraint or a damaged file stays the original error (500)', () => {
    const sqliteError = (errcode: number) => Object.assign(new Error('x'), { errcode });
    for (const code of [5, 6, 7, 8, 10, 13, 14, 15, 5 | (1 << 8), 10 | (13 << 8)]) {
      expect(isStorageUnavailable(toStorageError(sqliteError(code), 1))).toBe(true);
    }
    for (const code of [1, 11, 19, 275, 26, 2067]) {
      const error = sqliteError(code);
      expect(toStorageError(error, 1)).toBe(error);
    }
    const plain = new TypeError('a bug');
    expect(toStorageError(plain, 1)).toBe(plain);
  });

  it('a bug upstream (an unknown status, a fractional limit) is a plain rejection, never a 503', async () => {
    const storage = createSqliteStorage({ path: folder.file() });
    const bad = { ...pet, status: 'lost' } as unknown as typeof pet;
    expect(isStorageUnavailable(await rejection(storage.createPet(bad)))).toBe(false);
    await expect(storage.listPets({ limit: 1, status: bad.status })).rejects.toThrow(TypeError);
    await expect(storage.listPets({ limit: 1.5 })).rejects.toThrow(RangeError);
    await expect(storage.listOrders({ limit: 5, afterId: 0.5 })).rejects.toThrow(RangeError);
    expect(await storage.listPets({ limit: 10 })).toEqual([]);
    await storage.close();
  });
});
