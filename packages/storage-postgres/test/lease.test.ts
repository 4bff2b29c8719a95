import { getHeapSpaceStatistics } from 'node:v8';
import { hostPool } from '@petstore/test-postgres/vitest';
import type { PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hold } from '../src/lease.js';

const admin = hostPool();
let client: PoolClient;
beforeAll(async () => {
  client = await admin.connect();
});
afterAll(async () => {
  client.release();
  await admin.end();
});

/** Bytes in use in V8's old space, garbage not yet collected included. */
const oldSpaceUsed = (): number =>
  getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;

describe('hold', () => {
  it('gives the connection back once, however often release is called', () => {
    const given: Array<Error | undefined> = [];
    const failure = new Error('broken');
    const { release } = hold(client, (error) => given.push(error));
    release(failure);
    release();
    expect(given).toEqual([failure]);
  });

  it('listens for error once per connection, for the connection’s life', () => {
    const before = client.listenerCount('error');
    hold(client, () => undefined).release();
    const after = client.listenerCount('error');
    for (let i = 0; i < 10; i++) hold(client, () => undefined).release();
    expect(client.listenerCount('error')).toBe(after);
    expect(after - before).toBeLessThanOrEqual(1);
  });

  it('makes its lease in the young generation: 100,000 leases leave old space as it was', () => {
    // A lease made in old space (as V8 makes an object literal with a getter) holds its `done`,
    // and the request behind it, past every young collection until a full one: each such lease
    // is about 80 bytes there, so 100,000 of them add some 8 MB.
    let given = 0;
    const done = (): void => {
      given++;
    };
    hold(client, done).release();
    const before = oldSpaceUsed();
    for (let i = 0; i < 100_000; i++) hold(client, done).release();
    const grown = oldSpaceUsed() - before;
    expect(given).toBe(100_001);
    expect(grown).toBeLessThan(2_000_000);
  });
});
