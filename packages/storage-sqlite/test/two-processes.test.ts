import { describe, expect, it } from 'vitest';
import { createSqliteStorage } from '../src/index.js';
import { linesOf, spawnScript } from './support/children.js';
import { tempFolder } from './support/files.js';

// Exactly once across processes: two processes open one new file at the same moment (both
// migrate it: one does, the other finds it done), then each sends 50 keyed creates at once with
// the same key, key after key. Every key must come out as one pet, created once and replayed 99
// times, never an error and never in_flight (see README, "Idempotency-Key across processes").
const folder = tempFolder('processes');
const KEYS = 20;
const CALLS = 50;

interface KeyLine {
  readonly key: string;
  readonly results: readonly { kind: string; id?: number; error?: string }[];
}

describe('two processes sharing one file', () => {
  // FULL syncs at every commit, so a writer holds the lock for an fsync: the other process's
  // lookup then finds no claim yet, waits for the lock, and must look again under it. That is
  // the path a storage without the second look (or without BEGIN IMMEDIATE) gets wrong.
  it.each(['FULL', 'NORMAL'])(
    `${KEYS} keys × ${CALLS} concurrent keyed creates from each of two processes, synchronous %s: one pet per key`,
    async (synchronous) => {
      const path = folder.file();
      const children = [0, 1].map(() =>
        spawnScript('race-child.ts', [path, String(KEYS), String(CALLS), synchronous]),
      );
      const outputs = children.map(linesOf);
      try {
        await Promise.all(outputs.map((output) => output.next((line) => line === 'ready')));
        for (const child of children) child.stdin?.end('go\n');
        const codes = await Promise.all(outputs.map((output) => output.exited));
        for (const [index, output] of outputs.entries()) {
          expect(codes[index], output.stderr()).toEqual([0, null]);
        }
      } finally {
        for (const child of children) child.kill('SIGKILL');
      }

      const perKey = new Map<string, KeyLine['results'][number][]>();
      for (const output of outputs) {
        for (const line of output.lines.filter((l) => l.startsWith('{'))) {
          const parsed = JSON.parse(line) as KeyLine;
          perKey.set(parsed.key, [...(perKey.get(parsed.key) ?? []), ...parsed.results]);
        }
      }
      expect(perKey.size).toBe(KEYS);
      for (const [key, results] of perKey) {
        const kinds = results.map((result) => result.kind);
        expect(
          kinds.filter((kind) => kind === 'created'),
          key,
        ).toHaveLength(1);
        expect(
          kinds.filter((kind) => kind === 'replayed'),
          key,
        ).toHaveLength(2 * CALLS - 1);
        expect(new Set(results.map((result) => result.id)).size, key).toBe(1);
      }

      const storage = createSqliteStorage({ path });
      const pets = await storage.listPets({ limit: 100 });
      expect(pets).toHaveLength(KEYS);
      expect(new Set(pets.map((pet) => pet.name)).size).toBe(KEYS);
      await storage.close();
    },
    60_000,
  );
});
