import { isStorageUnavailable, MAX_ID } from '@petstore/core';
import { dropSchema, hostPool, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';
import { int8Types, parseInt8 } from '../src/int8.js';

const admin = hostPool();
const schema = uniqueSchema('int8');
beforeAll(() => migrate({ pool: admin, schema }));
afterAll(async () => {
  await dropSchema(admin, schema);
  await admin.end();
});

describe('int8 values', () => {
  it('parse to exact numbers, and refuse anything a number cannot hold exactly', () => {
    expect(parseInt8('9007199254740991')).toBe(MAX_ID);
    expect(parseInt8('-9007199254740991')).toBe(-MAX_ID);
    expect(parseInt8('0')).toBe(0);
    expect(() => parseInt8('9007199254740992')).toThrow(RangeError);
    expect(() => parseInt8('9223372036854775807')).toThrow(/safe integer range/);
  });

  it('are parsed per query: a real query rejects an unsafe value, and the pool keeps its own parsers', async () => {
    const exact = await admin.query({
      text: 'SELECT 9007199254740991::int8 AS v',
      types: int8Types,
    });
    expect(exact.rows).toEqual([{ v: MAX_ID }]);
    await expect(
      admin.query({ text: 'SELECT 9007199254740993::int8 AS v', types: int8Types }),
    ).rejects.toThrow(/safe integer range/);
    const storage = createPostgresStorage({ pool: admin, schema });
    await storage.listPets({ limit: 1 });
    // pg's global default (a string) is untouched for the host's own queries.
    expect((await admin.query('SELECT 7::int8 AS v')).rows).toEqual([{ v: '7' }]);
    await storage.close();
  });

  it('ids reach 2^53 − 1 exactly and never go past it', async () => {
    const edge = uniqueSchema('int8_edge');
    await migrate({ pool: admin, schema: edge });
    try {
      await admin.query(
        `SELECT setval(pg_get_serial_sequence('"${edge}".pets', 'id'), $1::bigint - 1)`,
        [MAX_ID],
      );
      const storage = createPostgresStorage({ pool: admin, schema: edge });
      const last = await storage.createPet({ name: 'last', categoryId: MAX_ID, status: 'sold' });
      expect(last).toEqual({ id: MAX_ID, name: 'last', categoryId: MAX_ID, status: 'sold' });
      expect(await storage.getPet(MAX_ID)).toEqual(last);
      const beyond = await storage
        .createPet({ name: 'beyond', categoryId: 1, status: 'sold' })
        .catch((e: unknown) => e);
      // Sequence exhausted: a 500 for the operator to see, not an outage and never a rounded id.
      expect(beyond).toMatchObject({ code: '2200H' });
      expect(isStorageUnavailable(beyond)).toBe(false);
      await storage.close();
    } finally {
      await dropSchema(admin, edge);
    }
  });

  it('a row whose id a number cannot hold is an error, not a rounded id', async () => {
    await admin.query(
      `INSERT INTO "${schema}".pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
       VALUES (9007199254740993, 'too big', 1, 'sold')`,
    );
    const storage = createPostgresStorage({ pool: admin, schema });
    const error = await storage
      .listPets({ limit: 5, afterId: MAX_ID - 1 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect(isStorageUnavailable(error)).toBe(false);
    await storage.close();
  });
});
