import { dropSchema, hostPool, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';

// A keyed create writes its claim and its pet, and nothing more: no foreign-key check
// (migration 005), which would lock the pet just written FOR KEY SHARE and so stamp that
// tuple's xmax with the writing transaction (a second WAL record per create).
const admin = hostPool();
const schema = uniqueSchema('writes');
const storage = createPostgresStorage({ pool: admin, schema });

beforeAll(async () => {
  await migrate({ pool: admin, schema });
});
afterAll(async () => {
  await storage.close();
  await dropSchema(admin, schema);
  await admin.end();
});

it('a keyed create leaves its pet unlocked: no foreign-key check runs', async () => {
  const result = await storage.createPetIdempotent(
    { name: 'Rex', categoryId: 1, status: 'available' },
    { scope: 'scope', key: 'key-1', fingerprint: 'f', retentionMs: 60_000 },
  );
  expect(result.kind).toBe('created');
  const id = result.kind === 'created' ? result.pet.id : 0;
  const { rows } = await admin.query<{ xmax: string }>(
    `SELECT xmax::text FROM "${schema}".pets WHERE id = $1`,
    [id],
  );
  expect(rows).toEqual([{ xmax: '0' }]);
  // The claim still points at its pet, and a replay finds it.
  const again = await storage.createPetIdempotent(
    { name: 'Rex', categoryId: 1, status: 'available' },
    { scope: 'scope', key: 'key-1', fingerprint: 'f', retentionMs: 60_000 },
  );
  expect(again).toEqual({
    kind: 'replayed',
    pet: { id, name: 'Rex', categoryId: 1, status: 'available' },
  });
});
