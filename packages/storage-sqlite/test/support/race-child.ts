// One process of the cross-process race (test/two-processes.test.ts): opens the file, says
// "ready", waits for "go" on stdin, then sends `calls` keyed creates at once for each key, one
// key after another, and prints one JSON line per key: the kinds and pet ids it got.
import type { IdempotentCreateResult } from '@petstore/core';
import { createSqliteStorage, type Synchronous } from '../../src/index.js';

const [path = '', keyCount = '1', calls = '50', synchronous = 'NORMAL'] = process.argv.slice(2);
const storage = createSqliteStorage({ path, synchronous: synchronous as Synchronous });
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));

const pet = { name: 'raced', categoryId: 1, status: 'available' } as const;
for (let k = 0; k < Number(keyCount); k += 1) {
  const claim = { scope: 'scope', key: `key-${k}`, fingerprint: 'f', retentionMs: 60_000 };
  const results = await Promise.all(
    Array.from({ length: Number(calls) }, () =>
      storage.createPetIdempotent({ ...pet, name: `raced-${k}` }, claim).then(
        (result: IdempotentCreateResult) => ({
          kind: result.kind,
          id: 'pet' in result ? result.pet.id : undefined,
        }),
        (error: unknown) => ({ kind: 'error', error: String(error) }),
      ),
    ),
  );
  process.stdout.write(`${JSON.stringify({ key: claim.key, results })}\n`);
}
await storage.close();
