import { createPetStoreClient, type PetStoreClient } from '@petstore/client';
import { createPostgresStorage, type ReplicaReadOutcome } from '@petstore/storage-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, type PatroniNode, startCluster, until } from '../src/cluster.js';
import { type Fleet, KEY, startFleet } from '../src/fleet.js';
import { toolsPresent } from '../src/tools.js';

// Reads from a replica (storage-postgres's readConnectionString, the service's DATABASE_READ_URL)
// over deploy/cluster/'s files: two instances of the Express app with DATABASE_URL on HAProxy's
// leader port and DATABASE_READ_URL on its replica port. A pet created through one instance must
// be in the next list made through the other (read-your-writes across instances), while the
// replicas answer the reads; with one replica's replay paused (behind) and with every replica
// gone, the primary answers instead, and no list misses a pet. About 60 s.

const PAIRS = Number(process.env.CLUSTER_READ_PAIRS ?? 10_000);
const WORKERS = 8;
const PAGE = 100;

/** A connection to one node's `pets` database (straight, not through HAProxy). */
async function onNode<T>(node: PatroniNode, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(node.superuserUrl);
  url.pathname = '/pets';
  const client = new pg.Client({ connectionString: url.href, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Transactions committed in `pets` on a node so far (a read on a replica is one). */
const transactions = (node: PatroniNode): Promise<number> =>
  onNode(node, async (client) => {
    const { rows } = await client.query<{ n: string }>(
      "SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = 'pets'",
    );
    return Number(rows[0]?.n ?? 0);
  });

interface Tail {
  cursor: string | undefined;
}

/**
 * Whether the pet `id` is in the list, walking from `tail` (a cursor no later than any pet this
 * worker has yet to look for): full pages wholly before `id` move the tail on.
 */
async function listed(client: PetStoreClient, id: number, tail: Tail): Promise<boolean> {
  let cursor = tail.cursor;
  for (;;) {
    const page = await client.listPets({
      limit: PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    if (page.items.some((pet) => pet.id === id)) return true;
    const last = page.items.at(-1);
    if (page.nextCursor === undefined || last === undefined) return false;
    if (last.id < id && cursor === tail.cursor) tail.cursor = page.nextCursor;
    cursor = page.nextCursor;
  }
}

interface PairResult {
  readonly pairs: number;
  readonly misses: readonly string[];
  readonly failures: readonly string[];
  readonly seconds: number;
}

/** `count` pairs over `WORKERS` workers: create through instance i, list through the other one. */
async function pairs(clients: readonly PetStoreClient[], count: number, prefix: string) {
  const misses: string[] = [];
  const failures: string[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async (w: number) => {
    const tail: Tail = { cursor: undefined };
    for (let n = next++; n < count; n = next++) {
      const writer = clients[n % clients.length] as PetStoreClient;
      const reader = clients[(n + 1) % clients.length] as PetStoreClient;
      const name = `${prefix}-${w}-${n}`;
      try {
        const pet = await writer.createPet({ name, categoryId: 1 });
        if (!(await listed(reader, pet.id, tail))) misses.push(`${name} (id ${pet.id})`);
      } catch (error) {
        failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return {
    pairs: count,
    misses,
    failures,
    seconds: (performance.now() - started) / 1000,
  } satisfies PairResult;
}

describe.skipIf(!toolsPresent())('reads from a replica (DATABASE_READ_URL)', () => {
  let cluster: Cluster | undefined;
  let fleet: Fleet | undefined;
  let clients: PetStoreClient[] = [];
  const c = () => cluster as Cluster;

  beforeAll(async () => {
    cluster = await startCluster();
    fleet = await startFleet(cluster, { instances: 2, replicaReads: true });
    // Each instance straight, with the client's default settings.
    clients = fleet.instances.map((app) => createPetStoreClient({ baseUrl: app.url, apiKey: KEY }));
    // The hook's time includes waiting for another cluster test of this machine (startCluster).
  }, 400_000);
  afterAll(async () => {
    await fleet?.stop();
    await cluster?.stop();
  });

  const replicas = async (): Promise<PatroniNode[]> => {
    const members = await c().members();
    const names = members.filter((m) => m.role !== 'leader').map((m) => m.name);
    return c().nodes.filter((node) => names.includes(node.name));
  };

  it(`${PAIRS} create-then-list pairs across two instances: no list misses its pet, the replicas answer`, async () => {
    const before = await Promise.all((await replicas()).map(transactions));
    const result = await pairs(clients, PAIRS, `pairs${Date.now().toString(36)}`);
    const after = await Promise.all((await replicas()).map(transactions));
    const replicaTransactions = after.reduce((sum, n, i) => sum + n - (before[i] ?? 0), 0);
    console.log(
      `${result.pairs} pairs in ${result.seconds.toFixed(1)} s: ${result.misses.length} misses, ` +
        `${result.failures.length} failures; ${replicaTransactions} transactions on the replicas`,
    );
    expect(result.misses).toEqual([]);
    expect(result.failures).toEqual([]);
    // Nearly every list ran on a replica (a list is one transaction there; each pair lists once
    // or more).
    expect(replicaTransactions).toBeGreaterThan(PAIRS * 0.9);
  }, 300_000);

  /** `count` create-then-get pairs with two storages in this process (as two instances). */
  const storagePairs = async (count: number, prefix: string) => {
    const outcomes: Record<ReplicaReadOutcome, number> = {
      replica: 0,
      behind: 0,
      failed: 0,
      resting: 0,
    };
    const storages = [0, 1].map(() =>
      createPostgresStorage({
        connectionString: c().databaseUrl,
        readConnectionString: c().readUrl,
        onReplicaRead: (outcome) => {
          outcomes[outcome] += 1;
        },
        purgeIntervalMillis: 0,
      }),
    );
    let misses = 0;
    try {
      for (let n = 0; n < count; n++) {
        const [writer, reader] = n % 2 === 0 ? storages : [...storages].reverse();
        const pet = await writer?.createPet({
          name: `${prefix}-${n}`,
          categoryId: 1,
          status: 'available',
        });
        if (pet === undefined || (await reader?.getPet(pet.id))?.id !== pet.id) misses += 1;
      }
    } finally {
      await Promise.all(storages.map((storage) => storage.close()));
    }
    return { misses, outcomes };
  };

  it('two storages in one process, as two instances: outcomes counted, none stale', async () => {
    const { misses, outcomes } = await storagePairs(500, 'storage');
    console.log(
      `500 create-then-get pairs, two storages: ${misses} misses, ${JSON.stringify(outcomes)}`,
    );
    expect(misses).toBe(0);
    expect(outcomes.replica).toBeGreaterThan(450);
  }, 120_000);

  it('a replica whose replay is paused is left for the primary: it lacks the pets, the lists do not', async () => {
    const members = await c().members();
    const asyncName = members.find((m) => m.role === 'replica')?.name;
    const paused = c().nodes.find((node) => node.name === asyncName);
    if (paused === undefined)
      throw new Error(`no asynchronous replica in ${JSON.stringify(members)}`);
    // Maintenance mode: Patroni would resume the replay within a second otherwise.
    await c().setPaused(true);
    await onNode(paused, (client) => client.query('SELECT pg_wal_replay_pause()'));
    try {
      const result = await pairs(clients, 1000, `paused${Date.now().toString(36)}`);
      const direct = await storagePairs(200, `paused-storage${Date.now().toString(36)}`);
      // The control: the paused replica has none of them, yet no list missed one.
      const there = await onNode(paused, async (client) => {
        const { rows } = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM petstore.pets WHERE name LIKE 'paused%'",
        );
        return rows[0]?.n ?? -1;
      });
      console.log(
        `replay paused on ${paused.name}: ${result.pairs} pairs, ${result.misses.length} misses, ` +
          `${result.failures.length} failures; ${there} of their pets on ${paused.name}; ` +
          `200 pairs of two storages: ${direct.misses} misses, ${JSON.stringify(direct.outcomes)}`,
      );
      expect(there).toBe(0);
      expect(direct.misses).toBe(0);
      // The paused replica was asked, and its reads went to the primary; found behind, it rested
      // (reads went straight to the primary) rather than making every read wait for it.
      expect(direct.outcomes.behind).toBeGreaterThan(0);
      expect(direct.outcomes.resting).toBeGreaterThan(0);
      expect(result.misses).toEqual([]);
      expect(result.failures).toEqual([]);
    } finally {
      await onNode(paused, (client) => client.query('SELECT pg_wal_replay_resume()'));
      await c().setPaused(false);
    }
  }, 120_000);

  it('every replica gone: reads fall back to the primary, no list misses, no call fails', async () => {
    const gone = await replicas();
    for (const node of gone) await node.kill();
    try {
      // Nothing answers on the replica port any more.
      await until(
        async () => {
          const client = new pg.Client({
            connectionString: c().readUrl,
            connectionTimeoutMillis: 1000,
          });
          client.on('error', () => undefined);
          const reached = await client.connect().then(
            () => true,
            () => false,
          );
          await client.end().catch(() => undefined);
          return !reached;
        },
        15_000,
        () => 'the replica port still answers',
      );
      const result = await pairs(clients, 500, `gone${Date.now().toString(36)}`);
      console.log(
        `no replica: ${result.pairs} pairs in ${result.seconds.toFixed(1)} s, ${result.misses.length} misses, ${result.failures.length} failures`,
      );
      expect(result.misses).toEqual([]);
      expect(result.failures).toEqual([]);
    } finally {
      for (const node of gone) node.start();
      await c().waitHealthy(90_000);
    }
  }, 180_000);
});
