import { hostPool } from '@petstore/test-postgres/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BoundStatement,
  boundQuery,
  statementTimeoutCall,
  type TimeoutStatement,
} from '../src/bound-query.js';
import { int8Types } from '../src/int8.js';
import { type OneQuery, pooledQuery } from '../src/pooled-query.js';
import { statementName } from '../src/prepared.js';

// One connection: the named statement is prepared on it, then bound.
const pool = hostPool({ max: 1 });
afterAll(() => pool.end());

const text = 'SELECT $1::int8 AS id, $2::text AS name';
const name = statementName(text);

describe('a statement config', () => {
  it('named: pg copies its values alone, and reads the rest from the statement', () => {
    const first = boundQuery(undefined, { text, values: [1, 'a'], name });
    const second = boundQuery(undefined, { text, values: [2, 'b'], name });
    expect(Object.keys(first)).toEqual(['values']);
    expect(Object.getPrototypeOf(first)).toBe(Object.getPrototypeOf(second));
    expect(first).toMatchObject({ text, name, types: int8Types, queryMode: 'extended' });
  });

  it('unnamed: every field its own, so a copy of its own fields keeps the int8 parsers', () => {
    const config = boundQuery(undefined, { text, values: [1, 'a'] });
    expect({ ...config }).toEqual({
      text,
      values: [1, 'a'],
      types: int8Types,
      queryMode: 'extended',
    });
  });

  it('runs on a real connection: named (prepared, then bound), unnamed, and with a timeout', async () => {
    const rows = async (timeout: TimeoutStatement | undefined, statement: BoundStatement) =>
      (await run(boundQuery(timeout, statement))).map((result) => result.rows);
    for (const id of [1, 2, 9007199254740991]) {
      expect(await rows(undefined, { text, values: [id, 'x'], name })).toEqual([
        [{ id, name: 'x' }],
      ]);
    }
    expect(await rows(undefined, { text, values: [3, 'y'] })).toEqual([[{ id: 3, name: 'y' }]]);
    // With an unnamed timeout statement ahead (a pg.Query): one result per statement.
    expect(await rows({ text: statementTimeoutCall(5000) }, { text, values: [4, 'z'] })).toEqual([
      [{ set_config: '5s' }],
      [{ id: 4, name: 'z' }],
    ]);
  });
});

/** One query as the storage sends it: every result, one per statement. */
const run = (query: OneQuery) =>
  pooledQuery(
    pool,
    () => query,
    5_000,
    () => new Error('PostgreSQL did not answer in 5 s'),
  );
