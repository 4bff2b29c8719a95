// The longer run of the cluster (docs/operations.md, "A PostgreSQL cluster"): the CI test's setup
// (tools/cluster/test/failover.test.ts) with more clients and instances, and a schedule that
// repeats until --duration is spent: the leader hung (SIGSTOP of Patroni and PostgreSQL for
// --hang seconds, then SIGCONT), the leader killed (kill -9, started again 10 s later), a
// planned switchover. It prints the figures per fault and writes them with the timeline (SVG)
// to --out. Exit status 1 when an acknowledged create was lost or doubled, or a call failed.
//
//   npx -y pnpm@10 --filter @petstore/cluster soak --duration 600
//   node --import tsx --conditions=@petstore/source tools/cluster/src/soak.ts --duration 600 --etcd3
//
// --etcd3 runs Patroni with its etcd v3 client (`etcd3:`) instead of the shipped v2 one (`etcd:`),
// to compare the two after a hang (Patroni 3.0.2, docs/operations.md).
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { wholeNumber as number } from './args.js';
import { startCluster } from './cluster.js';
import { startFleet } from './fleet.js';
import { runScenario } from './scenario.js';
import { missingTools } from './tools.js';

const FAULTS = ['hang', 'kill', 'switchover'] as const;
type FaultName = (typeof FAULTS)[number];

const USAGE = `usage: soak.ts [--duration SECONDS] [--hang SECONDS] [--faults LIST] [--clients N]
               [--instances N] [--out DIR] [--etcd3]

  --duration   how long the faults go on (300); the last fault started finishes
  --hang       how long the leader stays stopped (20)
  --faults     which faults, in this order, repeated (hang,kill,switchover)
  --clients    clients making keyed creates through the balancer (8)
  --instances  instances of the Express app (3)
  --out        where the report and the timeline go (.tmp/artifacts)
  --etcd3      Patroni's etcd v3 client instead of the shipped v2 one`;

async function main(): Promise<number> {
  // `pnpm soak -- --duration 600` passes the `--` along.
  const args = process.argv.slice(2);
  const { values } = parseArgs({
    args: args[0] === '--' ? args.slice(1) : args,
    options: {
      duration: { type: 'string', default: '300' },
      hang: { type: 'string', default: '20' },
      faults: { type: 'string', default: FAULTS.join(',') },
      clients: { type: 'string', default: '8' },
      instances: { type: 'string', default: '3' },
      out: {
        type: 'string',
        default: fileURLToPath(new URL('../../../.tmp/artifacts', import.meta.url)),
      },
      etcd3: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const duration = number('duration', values.duration, 30, 24 * 3600);
  const hang = number('hang', values.hang, 1, 600);
  const clients = number('clients', values.clients, 1, 64);
  const instances = number('instances', values.instances, 1, 8);
  const faults = values.faults.split(',').map((name) => name.trim());
  const unknown = faults.find((name) => !(FAULTS as readonly string[]).includes(name));
  if (unknown !== undefined || faults.length === 0) {
    throw new Error(`--faults: some of ${FAULTS.join(',')}, got ${values.faults}`);
  }
  if (missingTools !== undefined) throw new Error(missingTools);

  console.log(`starting the cluster (${values.etcd3 ? 'etcd3' : 'etcd v2'} API) ...`);
  const cluster = await startCluster({ etcd3: values.etcd3 });
  let fleet: Awaited<ReturnType<typeof startFleet>> | undefined;
  const stop = async () => {
    await fleet?.stop();
    await cluster.stop();
  };
  process.once('SIGINT', () => {
    void stop().then(() => process.exit(130));
  });
  try {
    fleet = await startFleet(cluster, { instances });
    console.log(`${instances} instances, ${clients} clients, faults for ${duration} s`);
    const name = `cluster-soak-${values.etcd3 ? 'etcd3' : 'etcd2'}`;
    const run = await runScenario({
      cluster,
      fleet,
      clients,
      title: `cluster soak: ${faults.join(', ')} (hang ${hang} s), repeated for ${duration} s (${values.etcd3 ? 'etcd3' : 'etcd v2'} API)`,
      artifacts: { dir: values.out, name },
      async schedule(ctx) {
        const log = (what: string) => console.log(`${ctx.recording.now().toFixed(1)}s ${what}`);
        const inject: Record<FaultName, () => Promise<void>> = {
          async hang() {
            const hung = await ctx.hangLeader(hang);
            // Patroni 3.0.2's etcd3 client can take the leader key back here (docs/operations.md).
            const leaders = new Set<string>();
            let back = false;
            for (let n = 0; n < 20; n++) {
              const leader = await cluster.leader();
              if (leader !== undefined) leaders.add(leader);
              if (leader === hung.name && !back) {
                back = true;
                ctx.recording.note(`${hung.name} took the leader key back`);
              }
              await sleep(500);
            }
            log(
              `${hung.name} resumed; leaders in the next 10 s: ${[...leaders].join(', ')}${back ? ' (the hung node TOOK THE LEADER KEY BACK)' : ''}`,
            );
          },
          async kill() {
            const killed = await ctx.killLeader();
            log(`killed ${killed.name}`);
            await ctx.at(ctx.recording.now() + 10);
            killed.start();
          },
          async switchover() {
            await ctx.switchover();
            log('switched over');
          },
        };
        await ctx.at(5);
        schedule: while (ctx.recording.now() < duration) {
          for (const fault of faults as FaultName[]) {
            if (ctx.recording.now() >= duration) break;
            await inject[fault]();
            try {
              await cluster.waitHealthy(60_000);
            } catch (error) {
              // The figures still count: the load goes on a little, then stops.
              log(`the cluster did not recover; no more faults. ${String(error).split('\n')[0]}`);
              break schedule;
            }
            await ctx.at(ctx.recording.now() + 5);
          }
        }
        await ctx.at(ctx.recording.now() + 10);
      },
    });
    console.log(run.report);
    console.log(`report and timeline: ${join(values.out, name)}.{txt,svg}`);
    const { figures } = run;
    return figures.lost.length + figures.duplicated.length + figures.failed.length === 0 ? 0 : 1;
  } finally {
    await stop();
  }
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    console.error(`soak: ${error instanceof Error ? error.message : String(error)}`);
    console.error(USAGE);
    process.exitCode = 2;
  },
);
