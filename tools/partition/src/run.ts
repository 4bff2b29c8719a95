import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Bouncer,
  type Cluster,
  type Fleet,
  KEY,
  petCount,
  startBouncer,
  startCluster,
  startFleet,
  until,
} from '@petstore/cluster';
import pg from 'pg';
import { checkHistory, describeVerdict, type Verdict } from './checker.js';
import { describeFaults, type FaultFigures, faultFigures, quantile, timeline } from './figures.js';
import { historyLines, type StoredPet } from './history.js';
import {
  awaitRecovery,
  FAULTS,
  type FaultName,
  type FaultRecord,
  FULL,
  INSTANCE_HOSTS,
  inject,
  type NemesisContext,
  READY_REQUIRES_STORAGE_INSTANCE,
  SHORT,
} from './nemesis.js';
import { addressOf, NETWORK_CIDR, placeOf } from './network.js';
import { rssSvg, timelineSvg } from './plot.js';
import { type RssSample, sampleRss, type Watched } from './rss.js';
import { newRecording, type Recording, runLoad } from './workload.js';

// The run itself, inside the driver's namespace (launch.ts makes the network and starts this):
// the cluster, PgBouncer and the fleet, each where network.ts places it; the load; the nemesis
// schedule; then the history checked against the leader's rows, the figures, the charts.

export interface PartitionConfig {
  readonly schedule: 'short' | 'full';
  /** Repeat the schedule until this many seconds have passed (a soak); 0: once. */
  readonly durationSeconds: number;
  readonly creators: number;
  readonly walkers: number;
  readonly pageSize: number;
  /** Where the report, the history and the charts go. */
  readonly out: string;
  /** Their base name. */
  readonly name: string;
}

/** Every /readyz answer must come within this, whatever the storage does. */
export const READY_WITHIN_S = 1;
/** Every instance must serve again within this of each heal. */
export const BACK_WITHIN_S = 30;

export interface PartitionSummary {
  readonly title: string;
  readonly seconds: number;
  readonly verdict: Verdict;
  readonly faults: readonly FaultFigures[];
  readonly ready: {
    readonly probes: number;
    readonly slowestSeconds: number;
    readonly p99Seconds: number;
    /** Answers slower than READY_WITHIN_S, or none. */
    readonly late: number;
    /** The first few of them: instance, when, how long, status (0: none). */
    readonly lateExamples: readonly string[];
    /** What an instance cut from the database answered that it should not have. */
    readonly wrongStatus: readonly string[];
  };
  readonly retries: number;
  readonly nonJson: readonly string[];
  readonly wrongKeys: readonly string[];
  /** Pets on each node at the end (straight, not through HAProxy). */
  readonly nodeCounts: readonly number[];
  readonly problems: readonly string[];
  readonly passed: boolean;
  readonly report: string;
  readonly artifacts: Readonly<Record<string, string>>;
}

/** Every pet the leader holds, with the Idempotency-Key it was stored under. */
async function storedPets(superuserUrl: string): Promise<StoredPet[]> {
  const client = new pg.Client({ connectionString: superuserUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; name: string; key: string | null }>(
      'SELECT p.id::text AS id, p.name, k.key FROM petstore.pets p LEFT JOIN petstore.idempotency_keys k ON k.pet_id = p.id',
    );
    return rows.map((row) => ({ id: Number(row.id), name: row.name, key: row.key ?? undefined }));
  } finally {
    await client.end();
  }
}

/** The readiness answers held to their bound, and to their status while an instance is cut off. */
function readyFigures(
  recording: Recording,
  faults: readonly FaultRecord[],
  names: readonly FaultName[],
) {
  const late = recording.ready.filter((p) => p.status === 0 || p.seconds > READY_WITHIN_S);
  const wrongStatus: string[] = [];
  for (const [n, fault] of faults.entries()) {
    const name = names[n];
    const instance =
      name === 'instance-cut-from-db'
        ? 0
        : name === 'ready-instance-cut-from-db'
          ? READY_REQUIRES_STORAGE_INSTANCE
          : undefined;
    if (instance === undefined) continue;
    const expected = instance === READY_REQUIRES_STORAGE_INSTANCE ? 503 : 200;
    // The probe's cached verdict lasts a second and its answer waits half of one: 3 s in.
    // Answers that came before the heal (one asked just before it may be answered after).
    for (const p of recording.ready) {
      const answeredAt = p.at + p.seconds;
      if (
        p.instance !== instance ||
        p.at < fault.at + 3 ||
        answeredAt > (fault.healedAt ?? fault.at)
      )
        continue;
      if (p.status !== expected)
        wrongStatus.push(
          `${INSTANCE_HOSTS[instance]} at ${p.at.toFixed(1)} s: ${p.status}, expected ${expected}`,
        );
    }
  }
  return {
    probes: recording.ready.length,
    slowestSeconds: Math.max(0, ...recording.ready.map((p) => p.seconds)),
    p99Seconds: quantile(
      recording.ready.map((p) => p.seconds),
      0.99,
    ),
    late: late.length,
    lateExamples: late
      .slice(0, 10)
      .map(
        (p) =>
          `${INSTANCE_HOSTS[p.instance]} at ${p.at.toFixed(1)} s: ${p.status} after ${(p.seconds * 1000).toFixed(0)} ms`,
      ),
    wrongStatus,
  };
}

/** Lines to a file a chunk at a time: an hour's history is hundreds of MB, past one string. */
async function writeLines(path: string, lines: readonly string[]): Promise<void> {
  const file = await open(path, 'w');
  try {
    for (let n = 0; n < lines.length; n += 10_000) {
      await file.write(`${lines.slice(n, n + 10_000).join('\n')}\n`);
    }
  } finally {
    await file.close();
  }
}

/** Creates by who made them: the clients (default settings) and the probes (no retries). */
function outcomesBy(recording: Recording): string {
  const tally = (probe: boolean) => {
    const mine = recording.ops.filter(
      (op) => op.kind === 'create' && op.process.startsWith('probe') === probe,
    );
    const count = (outcome: string) => mine.filter((op) => op.outcome === outcome).length;
    return `${count('ok')} ok, ${count('failed')} failed, ${count('unknown')} unknown`;
  };
  return `creates by the clients (default settings): ${tally(false)}; by the probes (no retries): ${tally(true)}`;
}

export async function runPartitionInside(config: PartitionConfig): Promise<PartitionSummary> {
  const timing = config.schedule === 'full' ? FULL : SHORT;
  const log = (line: string) => console.log(`[partition] ${line}`);
  const started = performance.now();
  log('starting the cluster (etcd, three Patroni nodes, HAProxy), each in its namespace');
  const cluster: Cluster = await startCluster({
    lock: false,
    keepLogsIn: join(config.out, `${config.name}-logs`),
    placement: {
      etcd: placeOf('etcd', 'cluster'),
      nodes: [1, 2, 3].map((n) => ({
        ...placeOf(`pg${n}` as 'pg1', 'data'),
        peerHost: addressOf(`pg${n}` as 'pg1', 'cluster'),
      })) as never,
      haproxy: placeOf('pgha', 'data'),
      network: NETWORK_CIDR,
    },
  });
  let bouncer: Bouncer | undefined;
  let fleet: Fleet | undefined;
  try {
    bouncer = await startBouncer(
      cluster.superuserUrl,
      cluster.databaseUrl,
      placeOf('pgha', 'data'),
    );
    log(
      `cluster up in ${((performance.now() - started) / 1000).toFixed(0)} s; starting three instances and the balancer`,
    );
    fleet = await startFleet(cluster, {
      placement: {
        instances: INSTANCE_HOSTS.map((host) => placeOf(host, 'front')),
        balancer: placeOf('lb', 'front'),
      },
      replicaReads: true,
      databaseUrl: bouncer.url,
      appOf: (n) => ['packages/service', 'examples/express-app', 'examples/hapi-app'][n] ?? '',
      envOf: (n): Record<string, string> =>
        n === READY_REQUIRES_STORAGE_INSTANCE ? { READY_REQUIRES_STORAGE: 'on' } : {},
    });
    const f = fleet;
    const b = bouncer;

    // Memory, every few seconds.
    const rss: RssSample[] = [];
    const watched: Watched[] = [
      ...f.instances.map((app, n) => ({
        name: `${INSTANCE_HOSTS[n]} (Node)`,
        pid: () => app.child.pid,
      })),
      { name: 'HAProxy (instances)', pid: () => f.balancerPid },
      { name: 'HAProxy (PostgreSQL)', pid: () => cluster.processIds().haproxy },
      { name: 'PgBouncer', pid: () => b.pid },
      { name: 'etcd', pid: () => cluster.processIds().etcd },
      ...cluster.nodes.map((node) => ({
        name: `${node.name} PostgreSQL (Pss)`,
        pid: node.postmasterPid,
        tree: true,
      })),
      ...cluster.nodes.map((node) => ({ name: `${node.name} Patroni`, pid: node.patroniPid })),
    ];

    // The clock starts with the load: the timeline leaves out the start-up.
    const recording = newRecording();
    let running = true;
    const load = runLoad({
      url: f.url,
      instanceUrls: f.instances.map((app) => app.url),
      apiKey: KEY,
      creators: config.creators,
      walkers: config.walkers,
      pageSize: config.pageSize,
      running: () => running,
      recording,
      prefix: `part${Date.now().toString(36)}`,
    });
    const sampling = (async () => {
      while (running) {
        rss.push(...sampleRss(recording.now(), watched));
        await sleep(config.durationSeconds > 600 ? 10_000 : 2_000);
      }
    })();

    // The schedule: each fault, healed, then the next once everything serves again.
    const faults: FaultRecord[] = [];
    const names: FaultName[] = [];
    const ctx: NemesisContext = {
      cluster,
      now: recording.now,
      log,
      allServing: async (since) =>
        f.instances.every((_, i) => {
          const mine = recording.serve.filter((p) => p.instance === i && p.start >= since);
          return mine.length >= 2 && mine.slice(-2).every((p) => p.ok);
        }),
    };
    let recovered = true;
    try {
      await sleep(5_000);
      schedule: do {
        for (const name of FAULTS) {
          const record = await inject(name, timing, ctx);
          faults.push(record);
          names.push(name);
          if (!(await awaitRecovery(record, timing, ctx))) {
            recovered = false;
            break schedule;
          }
          await sleep(timing.settleSeconds * 1000);
          if (config.durationSeconds > 0 && recording.now() >= config.durationSeconds)
            break schedule;
        }
      } while (config.durationSeconds > 0 && recording.now() < config.durationSeconds);
      await sleep(3_000);
    } finally {
      running = false;
      await Promise.all([load, sampling]);
    }
    const end = recording.now();
    log(
      `load stopped at ${end.toFixed(0)} s: ${recording.ops.length} operations; reading what the leader holds`,
    );

    // What the database holds, from the leader once the cluster is whole; every node the same.
    await cluster.waitHealthy(60_000);
    const leaderName = await cluster.leader();
    const leader = cluster.nodes.find((node) => node.name === leaderName);
    if (leader === undefined) throw new Error('no leader after the run');
    const leaderUrl = new URL(leader.superuserUrl);
    leaderUrl.pathname = '/pets';
    const stored = await storedPets(leaderUrl.href);
    let nodeCounts: number[] = [];
    await until(
      async () => {
        nodeCounts = await Promise.all(cluster.nodes.map((node) => petCount(node.superuserUrl)));
        return new Set(nodeCounts).size === 1;
      },
      30_000,
      () => 'the nodes hold different numbers of pets',
    ).catch(() => undefined);

    const verdict = checkHistory(recording.ops, stored);
    const figures = faultFigures(recording, faults, f.instances.length, end);
    const ready = readyFigures(recording, faults, names);
    const problems: string[] = [];
    if (!verdict.valid) problems.push('the history checker found violations');
    if (!recovered)
      problems.push(`a fault was not recovered from within ${timing.recoverWithinSeconds} s`);
    for (const fault of figures) {
      const slowest = Math.max(...fault.backSeconds);
      if (slowest > BACK_WITHIN_S)
        problems.push(
          `${fault.what}: serving again ${slowest.toFixed(1)} s after the heal (over ${BACK_WITHIN_S} s)`,
        );
    }
    if (ready.late > 0)
      problems.push(
        `${ready.late} /readyz answers slower than ${READY_WITHIN_S} s or missing: ${ready.lateExamples.join('; ')}`,
      );
    if (ready.wrongStatus.length > 0)
      problems.push(`/readyz of a cut-off instance: ${ready.wrongStatus.slice(0, 3).join('; ')}`);
    if (recording.nonJson.length > 0)
      problems.push(`answers that were not JSON: ${recording.nonJson.slice(0, 3).join('; ')}`);
    if (recording.wrongKeys.length > 0)
      problems.push(
        `outcome_unknown with another key: ${recording.wrongKeys.slice(0, 3).join('; ')}`,
      );
    if (new Set(nodeCounts).size !== 1)
      problems.push(`the nodes hold different numbers of pets: ${nodeCounts.join(', ')}`);

    const title = `partitions: the ${config.schedule} schedule${config.durationSeconds > 0 ? `, repeated for ${config.durationSeconds} s` : ''} (${end.toFixed(0)} s, ${config.creators} creators, ${config.walkers} walkers, 3 instances)`;
    const report = [
      title,
      `${recording.ops.length} operations, ${recording.retries.length} client retries, ${recording.nonJson.length} non-JSON answers`,
      outcomesBy(recording),
      describeVerdict(verdict),
      describeFaults(figures),
      `/readyz: ${ready.probes} probes, p99 ${(ready.p99Seconds * 1000).toFixed(0)} ms, slowest ${(ready.slowestSeconds * 1000).toFixed(0)} ms, ${ready.late} over ${READY_WITHIN_S} s or missing, ${ready.wrongStatus.length} wrong while cut off`,
      `pets per node at the end: ${nodeCounts.join(', ')}`,
      problems.length === 0 ? 'PASSED' : `FAILED:\n  ${problems.join('\n  ')}`,
    ].join('\n');

    await mkdir(config.out, { recursive: true });
    const base = join(config.out, config.name);
    const artifacts = {
      report: `${base}.txt`,
      timeline: `${base}.svg`,
      rss: `${base}-rss.svg`,
      history: `${base}-history.jsonl`,
      summary: `${base}.json`,
    };
    await writeFile(artifacts.report, `${report}\n`);
    await writeFile(artifacts.timeline, await timelineSvg(title, timeline(recording, end), faults));
    await writeFile(artifacts.rss, await rssSvg(`memory over the run: ${title}`, rss));
    await writeLines(artifacts.history, historyLines(recording.ops));
    const summary: PartitionSummary = {
      title,
      seconds: end,
      verdict,
      faults: figures,
      ready,
      retries: recording.retries.length,
      nonJson: recording.nonJson.slice(0, 20),
      wrongKeys: recording.wrongKeys.slice(0, 20),
      nodeCounts,
      problems,
      passed: problems.length === 0,
      report,
      artifacts,
    };
    await writeFile(artifacts.summary, `${JSON.stringify(summary, null, 2)}\n`);
    return summary;
  } finally {
    await fleet?.stop().catch(() => undefined);
    bouncer?.stop();
    await cluster.stop();
  }
}
