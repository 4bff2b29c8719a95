import { setTimeout as sleep } from 'node:timers/promises';
import type { IdempotencyClaim, PetInput } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import type { Database } from '../src/driver.js';
import { createSqliteStorage, type SqliteStorage } from '../src/index.js';
import { purgeOnce } from '../src/purge.js';
import { prepareStatements } from '../src/statements.js';
import { connectionOf } from '../src/storage.js';
import { tempFolder } from './support/files.js';
import { holdLock } from './support/ground.js';
import { inTransaction } from './support/transaction.js';

const folder = tempFolder('idempotency');
const rex: PetInput = { name: 'Rex', categoryId: 1, status: 'available' };

const claim = (key: string, retentionMs = 1000, fingerprint = 'f1'): IdempotencyClaim => ({
  scope: 'scope',
  key,
  fingerprint,
  retentionMs,
});

/** A storage on a clock the test moves by hand, and its connection to look inside. */
function setup(options: { purgeIntervalMs?: number } = {}) {
  const clock = { now: 1_000_000 };
  const storage = createSqliteStorage({
    path: folder.file(),
    now: () => clock.now,
    purgeIntervalMs: options.purgeIntervalMs ?? 0,
  });
  const db = connectionOf(storage) as Database;
  const claims = () =>
    db.prepare('SELECT scope, key, pet_id, created_at, expires_at FROM idempotency_keys').all();
  const pets = () => Number(db.prepare('SELECT count(*) AS n FROM pets').get()?.n);
  return { clock, storage, db, claims, pets };
}

describe('createPetIdempotent in SQLite', () => {
  it('a claim lives exactly retentionMs on the storage clock: replays at expiry - 1 ms, is absent at expiry', async () => {
    const { clock, storage, claims } = setup();
    const first = await storage.createPetIdempotent(rex, claim('k'));
    expect(first).toStrictEqual({ kind: 'created', pet: { id: 1, ...rex } });
    expect(claims()).toEqual([
      expect.objectContaining({ created_at: 1_000_000, expires_at: 1_001_000, pet_id: 1 }),
    ]);
    clock.now += 999;
    expect(await storage.createPetIdempotent(rex, claim('k'))).toStrictEqual({
      kind: 'replayed',
      pet: { id: 1, ...rex },
    });
    clock.now += 1;
    expect(await storage.createPetIdempotent(rex, claim('k', 1000, 'f2'))).toStrictEqual({
      kind: 'created',
      pet: { id: 2, ...rex },
    });
    // The expired claim was replaced in place: one row for the key, pointing at the new pet.
    expect(claims()).toEqual([expect.objectContaining({ key: 'k', pet_id: 2 })]);
    await storage.close();
  });

  it('is never in_flight in one process: 50 concurrent calls give one created and 49 replayed', async () => {
    const { storage } = setup();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => storage.createPetIdempotent(rex, claim('k'))),
    );
    const kinds = results.map((result) => result.kind);
    expect(kinds.filter((kind) => kind === 'created')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'replayed')).toHaveLength(49);
    await storage.close();
  });

  it('the pet and its claim are one transaction: when the claim cannot be written, the pet is not kept', async () => {
    const { storage, db, claims, pets } = setup();
    db.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON idempotency_keys
      WHEN NEW.key = 'poison' BEGIN SELECT RAISE(ABORT, 'claim refused'); END`);
    await expect(storage.createPetIdempotent(rex, claim('poison'))).rejects.toThrow(
      /claim refused/,
    );
    expect(pets()).toBe(0);
    expect(claims()).toEqual([]);
    expect(inTransaction(db)).toBe(false);
    // The key stays free: once the claim can be written, the same key creates the pet.
    db.exec('DROP TRIGGER refuse_poison');
    expect((await storage.createPetIdempotent(rex, claim('poison'))).kind).toBe('created');
    expect(pets()).toBe(1);
    await storage.close();
  });

  it('claims are written under scope only; alsoScopes are read, never written', async () => {
    const { storage, claims } = setup();
    await storage.createPetIdempotent(rex, {
      ...claim('k'),
      scope: 'current',
      alsoScopes: ['legacy'],
    });
    expect(claims().map((row) => row.scope)).toEqual(['current']);
    await storage.close();
  });

  it('rejects a retentionMs the core never sends, storing nothing', async () => {
    const { storage, claims, pets } = setup();
    for (const retentionMs of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(storage.createPetIdempotent(rex, claim('k', retentionMs))).rejects.toThrow(
        RangeError,
      );
    }
    expect(pets()).toBe(0);
    expect(claims()).toEqual([]);
    await storage.close();
  });
});

describe('purging expired claims', () => {
  it('one round deletes expired claims only, at most 1,000, oldest first', async () => {
    const { clock, storage, db, claims } = setup();
    // 1,500 claims made at t, t+1, ...; each lives 1,000 ms.
    const start = clock.now;
    for (let n = 0; n < 1500; n += 1) {
      clock.now = start + n;
      await storage.createPetIdempotent(rex, claim(`k${n}`));
    }
    const target = { statements: prepareStatements(db), db, busyTimeoutMs: 5000 };
    // At start + 1,300, the claims made at start..start + 300 have expired: 301 of them.
    expect(purgeOnce(target, start + 1300)).toBe(301);
    expect(claims()).toHaveLength(1199);
    // Much later all have expired: 1,000 go in one round, the rest in the next.
    expect(purgeOnce(target, start + 10_000)).toBe(1000);
    expect(purgeOnce(target, start + 10_000)).toBe(199);
    expect(claims()).toEqual([]);
    // The pets stay: only the keys are forgotten.
    expect(await storage.listPets({ limit: 5 })).toHaveLength(5);
    await storage.close();
  });

  it('never waits for the write lock: with another process writing, the round is skipped at once', async () => {
    const storage = createSqliteStorage({ path: folder.file(), purgeIntervalMs: 0 });
    const db = connectionOf(storage) as Database;
    const target = { statements: prepareStatements(db), db, busyTimeoutMs: 5000 };
    const holder = await holdLock(storage.path, { wal: true });
    try {
      const started = performance.now();
      expect(purgeOnce(target, Date.now())).toBe(0);
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      await holder.release();
    }
    // The busy timeout is back for everything else.
    expect(db.prepare('PRAGMA busy_timeout').get()?.timeout).toBe(5000);
    await storage.close();
  });

  it('runs on its own timer (purgeIntervalMs), and not at all with 0', async () => {
    const stores: SqliteStorage[] = [];
    const counts = [];
    for (const purgeIntervalMs of [20, 0]) {
      const storage = createSqliteStorage({ path: folder.file(), purgeIntervalMs });
      stores.push(storage);
      await storage.createPetIdempotent(rex, claim('short', 1));
    }
    await sleep(300);
    for (const storage of stores) {
      const db = connectionOf(storage) as Database;
      counts.push(Number(db.prepare('SELECT count(*) AS n FROM idempotency_keys').get()?.n));
      await storage.close();
    }
    expect(counts).toEqual([0, 1]);
  });
});

describe('statements', () => {
  it('every statement is prepared once, when the storage opens, never per call', async () => {
    const storage = createSqliteStorage({ path: folder.file(), purgeIntervalMs: 0 });
    const db = connectionOf(storage) as Database;
    const prepare = db.prepare.bind(db);
    let prepared = 0;
    db.prepare = (sql: string) => {
      prepared += 1;
      return prepare(sql);
    };
    for (let n = 0; n < 20; n += 1) {
      await storage.createPet(rex);
      await storage.createPetIdempotent(rex, {
        ...claim(`k${n % 5}`),
        scope: 's',
        alsoScopes: ['old'],
      });
      await storage.getPet(n + 1);
      await storage.listPets({ limit: 10, afterId: n });
      await storage.listPets({ limit: 10, afterId: n, status: 'available' });
      await storage.createOrder({
        petId: 1,
        quantity: 1,
        shipDate: '2030-01-01T00:00:00.000Z',
        status: 'placed',
        complete: n % 2 === 0,
      });
      await storage.listOrders({ limit: 10 });
    }
    expect(prepared).toBe(0);
    await storage.close();
  });
});
