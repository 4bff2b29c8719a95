import { describe, expect, it } from 'vitest';
import { createSqliteStorage, type Synchronous } from '../src/index.js';
import { connectionOf } from '../src/storage.js';
import { linesOf, spawnScript } from './support/children.js';
import { tempFolder } from './support/files.js';

const folder = tempFolder('durability');
const ACKS = 200;

describe('a process killed mid-write (SIGKILL) loses nothing it acknowledged', () => {
  for (const synchronous of ['NORMAL', 'FULL'] as const satisfies readonly Synchronous[]) {
    it(`synchronous ${synchronous}: every acknowledged keyed create is there exactly once, with its claim`, async () => {
      const path = folder.file();
      const child = spawnScript('ack-child.ts', [path, synchronous]);
      const output = linesOf(child);
      try {
        await output.next((line) => line.startsWith(`${ACKS - 1} `));
      } finally {
        child.kill('SIGKILL');
      }
      await output.exited;
      // Every line it wrote before it died: created and committed before it was printed.
      const acked = output.lines
        .filter((line) => /^\d+ \d+$/.test(line))
        .map((line) => line.split(' ').map(Number) as [number, number]);
      expect(acked.length).toBeGreaterThanOrEqual(ACKS);

      const storage = createSqliteStorage({ path });
      const pets = [];
      for (let afterId = 0; ; ) {
        const page = await storage.listPets({ afterId, limit: 100 });
        pets.push(...page);
        const last = page.at(-1);
        if (last === undefined) break;
        afterId = last.id;
      }
      const byName = new Map(pets.map((pet) => [pet.name, pet]));
      expect(byName.size, 'no name twice').toBe(pets.length);
      for (const [n, id] of acked) {
        expect(byName.get(`acked-${n}`)?.id, `acked-${n}`).toBe(id);
        // The claim survived with its pet: a retry replays, never a second pet.
        const retry = await storage.createPetIdempotent(
          { name: `acked-${n}`, categoryId: 1, status: 'available' },
          { scope: 'scope', key: `key-${n}`, fingerprint: `f-${n}`, retentionMs: 3_600_000 },
        );
        expect(retry).toMatchObject({ kind: 'replayed', pet: { id } });
      }
      // At most the one create in flight at the kill went further than its acknowledgement.
      expect(pets.length - acked.length).toBeLessThanOrEqual(1);
      await storage.close();
    }, 60_000);
  }
});

describe('the connection as configured', () => {
  it('WAL journal mode, the busy timeout and synchronous as given (NORMAL by default)', async () => {
    const cases = [
      [{}, 'wal', 5000, 1],
      [{ synchronous: 'FULL', busyTimeoutMs: 1234 }, 'wal', 1234, 2],
      [{ synchronous: 'EXTRA' }, 'wal', 5000, 3],
    ] as const;
    for (const [options, journal, busy, sync] of cases) {
      const storage = createSqliteStorage({ path: folder.file(), ...options });
      const db = connectionOf(storage);
      expect(db?.prepare('PRAGMA journal_mode').get()?.journal_mode).toBe(journal);
      expect(db?.prepare('PRAGMA busy_timeout').get()?.timeout).toBe(busy);
      expect(db?.prepare('PRAGMA synchronous').get()?.synchronous).toBe(sync);
      expect(db?.prepare('PRAGMA foreign_keys').get()?.foreign_keys).toBe(1);
      await storage.close();
    }
  });

  it('refuses options that could not work', () => {
    const path = folder.file();
    expect(() => createSqliteStorage({ path, synchronous: 'OFF' as Synchronous })).toThrow(
      /synchronous must be one of NORMAL, FULL, EXTRA/,
    );
    expect(() => createSqliteStorage({ path, busyTimeoutMs: -1 })).toThrow(TypeError);
    expect(() => createSqliteStorage({ path, retryAfterSeconds: 0 })).toThrow(TypeError);
    expect(() => createSqliteStorage({ path, purgeIntervalMs: 1.5 })).toThrow(TypeError);
  });
});
