// The crash test's child (test/durability.test.ts): keyed creates one after another, printing
// "<n> <id>" once each has returned (committed), until it is killed.
import { createSqliteStorage, type Synchronous } from '../../src/index.js';

const [path = '', synchronous = 'NORMAL'] = process.argv.slice(2);
const storage = createSqliteStorage({ path, synchronous: synchronous as Synchronous });
for (let n = 0; ; n += 1) {
  const result = await storage.createPetIdempotent(
    { name: `acked-${n}`, categoryId: 1, status: 'available' },
    { scope: 'scope', key: `key-${n}`, fingerprint: `f-${n}`, retentionMs: 3_600_000 },
  );
  if (result.kind !== 'created') throw new Error(`expected created, got ${result.kind}`);
  process.stdout.write(`${n} ${result.pet.id}\n`);
}
