import { dropSchema, hostPool, postgresUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, migrate, type ReplicaReadOutcome } from '../src/index.js';
import { refusedPort } from './support/servers.js';

// readPool / readConnectionString on one server (no replica here: tools/cluster's
// replica-reads test has a real one). The "replica" here is the primary itself, which is not in
// recovery, so it never counts as caught up: the read goes to the primary, says so, and the
// replica rests a while (reads go straight to the primary), then is asked again. An unreachable
// replica is left for the primary too, then rests. The option is refused in ways that would be
// ambiguous.

const admin = hostPool();
const schema = uniqueSchema('replica');
beforeAll(() => migrate({ pool: admin, schema }));
afterAll(async () => {
  await dropSchema(admin, schema);
  await admin.end();
});

const counter = () => {
  const outcomes: ReplicaReadOutcome[] = [];
  return { outcomes, onReplicaRead: (outcome: ReplicaReadOutcome) => outcomes.push(outcome) };
};

describe('reads from a replica, on one server', () => {
  it('a "replica" that is not in recovery is never trusted: the primary answers, reported behind, then the replica rests', async () => {
    const { outcomes, onReplicaRead } = counter();
    const storage = createPostgresStorage({
      pool: admin,
      schema,
      readConnectionString: postgresUrl(),
      replicaWaitMillis: 5,
      replicaTimeoutMillis: 300,
      onReplicaRead,
    });
    try {
      const pet = await storage.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
      expect(await storage.getPet(pet.id)).toEqual(pet);
      const page = await storage.listPets({ limit: 10 });
      expect(page.map((p) => p.id)).toContain(pet.id);
      expect(await storage.listOrders({ limit: 10 })).toEqual([]);
      // Behind once, then left alone: the next reads go to the primary without asking it.
      expect(outcomes).toEqual(['behind', 'resting', 'resting']);
      // Its rest over, it is asked again.
      await new Promise((resolve) => setTimeout(resolve, 350));
      await storage.listPets({ limit: 1 });
      expect(outcomes.at(-1)).toBe('behind');
    } finally {
      await storage.close();
    }
  });

  it('an unreachable replica: the primary answers at once, then the replica rests', async () => {
    const { outcomes, onReplicaRead } = counter();
    const url = new URL(postgresUrl());
    url.port = String(await refusedPort());
    const storage = createPostgresStorage({
      pool: admin,
      schema,
      readConnectionString: url.href,
      replicaTimeoutMillis: 500,
      onReplicaRead,
    });
    try {
      const pet = await storage.createPet({ name: 'Tom', categoryId: 1, status: 'available' });
      const started = performance.now();
      expect(await storage.getPet(pet.id)).toEqual(pet);
      expect(await storage.getPet(pet.id)).toEqual(pet);
      expect(performance.now() - started).toBeLessThan(2000);
      expect(outcomes).toEqual(['failed', 'resting']);
    } finally {
      await storage.close();
    }
  });

  it('the host pool for reads stays open on close(); an owned one is ended', async () => {
    const readPool: pg.Pool = hostPool();
    const storage = createPostgresStorage({ pool: admin, schema, readPool });
    await storage.listPets({ limit: 1 });
    await storage.close();
    expect((await readPool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    await readPool.end();
  });

  it('refuses readPool with readConnectionString, and a negative wait', () => {
    const readPool = hostPool();
    expect(() =>
      createPostgresStorage({ pool: admin, readPool, readConnectionString: postgresUrl() }),
    ).toThrow(/readPool or readConnectionString/);
    expect(() => createPostgresStorage({ pool: admin, readPool, replicaWaitMillis: -1 })).toThrow(
      /replicaWaitMillis/,
    );
    return readPool.end();
  });
});
