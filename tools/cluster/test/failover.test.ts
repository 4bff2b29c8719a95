import { ARTIFACTS_DIR } from '@petstore/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, petCount, startCluster, until } from '../src/cluster.js';
import { type Fleet, startFleet } from '../src/fleet.js';
import { type Bouncer, startBouncer } from '../src/pgbouncer.js';
import { runScenario } from '../src/scenario.js';
import { toolsPresent } from '../src/tools.js';

// Issue #32 in CI: deploy/cluster/ as `node deploy/fill.mjs --cluster` writes it (three
// PostgreSQL 15 nodes under Patroni 3.0 with one etcd, HAProxy to the leader), two instances of
// the Express app behind deploy/haproxy.cfg, four clients making keyed creates with
// @petstore/client's default settings. Faults: kill -9 of the leader (Patroni and PostgreSQL),
// the node started again, then a planned switchover. Every acknowledged create must be stored
// exactly once, no call may fail, every answer must be JSON, and each instance must serve
// creates again within 10 s of each fault (probes straight to it, no retries). Twice on one
// cluster: the instances straight on HAProxy's leader port, then through PgBouncer in front of
// it (`fill.mjs --postgres <haproxy>:5000`, as docs/operations.md has it). The reports and
// timelines (SVG) go to .tmp/artifacts/cluster-failover{,-pgbouncer}.*. About 2.5 minutes, after
// any other cluster test of this machine has finished (one cluster at a time: startCluster).

const BACK_WITHIN_S = 10;

describe.skipIf(!toolsPresent())('a three-node Patroni cluster under keyed creates', () => {
  let cluster: Cluster | undefined;
  let fleet: Fleet | undefined;
  let bouncer: Bouncer | undefined;
  beforeAll(async () => {
    cluster = await startCluster();
    // Up to 4 minutes of it waiting for another cluster on this machine (see startCluster).
  }, 420_000);
  afterAll(async () => {
    await fleet?.stop();
    bouncer?.stop();
    await cluster?.stop();
  });

  it.each([
    ['straight to the leader port', false],
    ['through PgBouncer in front of the leader port', true],
  ])(
    'kill -9 of the leader, then a switchover, %s: none lost, none doubled, no failed call, only JSON, instances back within 10 s',
    async (how, throughBouncer) => {
      const c = cluster as Cluster;
      await c.waitHealthy(60_000);
      if (throughBouncer) bouncer = await startBouncer(c.superuserUrl, c.databaseUrl);
      fleet = await startFleet(c, {
        instances: 2,
        ...(bouncer === undefined ? {} : { databaseUrl: bouncer.url }),
      });
      const run = await runScenario({
        cluster: c,
        fleet,
        clients: 4,
        title: `kill -9 of the leader, then a switchover, ${how} (tools/cluster/test/failover.test.ts)`,
        artifacts: {
          dir: ARTIFACTS_DIR,
          name: throughBouncer ? 'cluster-failover-pgbouncer' : 'cluster-failover',
        },
        async schedule(ctx) {
          await ctx.at(5);
          const killed = await ctx.killLeader();
          await ctx.at(20);
          // Back as a replica (pg_rewind if it had diverged), then synchronous again.
          killed.start();
          await c.waitHealthy(60_000);
          await ctx.at(30);
          await ctx.switchover();
          await ctx.at(ctx.recording.now() + 12);
        },
      });
      console.log(`${run.report}\ntimeline: ${run.svgPath}`);

      const { figures } = run;
      expect(figures.acknowledged).toBeGreaterThan(500);
      expect(figures.lost).toEqual([]);
      expect(figures.duplicated).toEqual([]);
      expect(figures.nonJson).toEqual([]);
      expect(figures.failed).toEqual([]);
      expect(figures.perFault.map((f) => f.fault)).toEqual([
        expect.stringMatching(/^kill -9 leader/),
        'switchover',
      ]);
      for (const fault of figures.perFault) {
        expect(fault.backSeconds, fault.fault).toBeLessThanOrEqual(BACK_WITHIN_S);
      }

      // Every node holds the same pets once the replicas have caught up (the killed one rewound).
      const members = await c.waitHealthy(30_000);
      expect(members.filter((m) => m.role === 'leader')).toHaveLength(1);
      let counts: number[] = [];
      await until(
        async () => {
          counts = await Promise.all(c.nodes.map((node) => petCount(node.superuserUrl)));
          return new Set(counts).size === 1;
        },
        15_000,
        () => `the nodes hold different numbers of pets: ${counts.join(', ')}`,
      );
      await fleet.stop();
      fleet = undefined;
    },
    300_000,
  );
});
