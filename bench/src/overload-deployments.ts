/**
 * What the past-capacity measurement (measurements/overload.ts) loads: the service as users run
 * it, each server under test in a CPU-quota group of its own (cgroup.ts), the load generator
 * outside them all. A deployment is started fresh for each run and stopped after it.
 *
 * - `fleet`: two instances on `memory:` behind the deploy's HAProxy (deploy/haproxy.cfg filled
 *   by deploy/fill.mjs), `TRUSTED_PROXIES` as docs/operations.md says. HAProxy runs without a
 *   quota, on the server core: the balancer is what refuses, not what is measured.
 * - `postgres`: one instance on PostgreSQL (a database of its own on the bench's server, whose
 *   postmaster, and so every backend it forks, is in a quota group for the run).
 * - `alone`: one instance on `memory:`, facing clients directly.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus as machineCpus } from 'node:os';
import pg from 'pg';
import { type Balancer, startBalancer } from './balancer.js';
import { type CpuGroup, createCpuGroup, processTree } from './cgroup.js';
import { canPin, SERVER_CPU } from './cpu.js';
import type { ServerProbe } from './servers/overload.js';
import { type ServiceProcess, startService } from './service-process.js';

export type DeploymentKind = 'fleet' | 'postgres' | 'alone';

export interface Deployment {
  /** Where the load goes: the balancer, or the one instance. */
  readonly url: string;
  readonly instances: readonly ServiceProcess[];
  readonly balancer: Balancer | undefined;
  /** CPU seconds of each part since it started (its quota group's cpuacct); undefined without. */
  cpuSeconds(): { readonly instances?: number; readonly postgres?: number };
  /** The instances' heap and loop: every instance's probe, the largest peak heap. */
  probe(action: 'start' | 'read', liveAfterMs?: number): Promise<ServerProbe | null>;
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  readonly kind: DeploymentKind;
  /** Each instance's CPU quota (CPUs), or undefined: no quota (no cgroup here). */
  readonly instanceCpus: number | undefined;
  /** The service's variables for this run (defaults: only what the deployment needs). */
  readonly env: Readonly<Record<string, string>>;
  /** HAProxy's PETSTORE_* settings (the fleet). */
  readonly balancerSettings?: Readonly<Record<string, string>> | undefined;
  /** The database URL for `postgres`. */
  readonly databaseUrl?: string | undefined;
  /** Demo pets to seed (SEED_PETS), so a list page is full. */
  readonly seedPets: number;
  /**
   * Load the instances get before they enter their quota groups, sent where the measured load
   * goes (`url`: the balancer, or the one instance), for `instances` instances: V8's optimising
   * compiler runs on threads inside the quota, so at 0.1 CPU an instance takes tens of seconds
   * of load to warm, and a level measured meanwhile reads the compiler, not the service (on the
   * fleet, an instance's user CPU per list was 160-220 µs in its first seconds of load and 64-111
   * µs after about 25 s). Through the balancer, because a request an instance has not seen
   * (HAProxy's `X-Forwarded-For`, say) sends V8 back to its compiler under the quota: warmed on
   * direct requests, the fleet's instances met about 100 deoptimisations as the balancer's
   * arrived.
   */
  readonly warmup?: ((url: string, instances: number) => Promise<void>) | undefined;
}

const FLEET_SIZE = 2;
/**
 * The quotas' period: 10 ms, not the kernel's 100 ms, so a small quota runs in short slices (0.1
 * CPU: 1 ms in every 10, not 10 ms then 90 ms throttled, which every answer would wait out).
 */
const QUOTA_PERIOD_MICROS = 10_000;

/** The peak of several probes: the largest heap, the worst loop delay. */
function worst(probes: readonly (ServerProbe | null)[]): ServerProbe | null {
  const read = probes.filter((probe): probe is ServerProbe => probe !== null);
  if (read.length === 0 || read.length < probes.length) return null;
  const max = (pick: (probe: ServerProbe) => number) => Math.max(...read.map(pick));
  const loops = read.map((probe) => probe.eventLoopP99Ms).filter((ms) => ms !== null);
  return {
    heapUsedStartBytes: max((probe) => probe.heapUsedStartBytes),
    heapUsedEndBytes: max((probe) => probe.heapUsedEndBytes),
    heapUsedMaxBytes: max((probe) => probe.heapUsedMaxBytes),
    liveHeapBytes: read.some((probe) => probe.liveHeapBytes === null)
      ? null
      : max((probe) => probe.liveHeapBytes ?? 0),
    rssMaxBytes: max((probe) => probe.rssMaxBytes),
    samples: Math.min(...read.map((probe) => probe.samples)),
    eventLoopP99Ms: loops.length === 0 ? null : Math.max(...loops),
  };
}

export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const { kind, instanceCpus } = options;
  const count = kind === 'fleet' ? FLEET_SIZE : 1;
  const groups: CpuGroup[] = [];
  const instances: ServiceProcess[] = [];
  let balancer: Balancer | undefined;
  const stop = async () => {
    await balancer?.stop();
    await Promise.all(instances.map((instance) => instance.stop()));
    for (const group of groups) await group.remove();
  };
  try {
    for (let n = 0; n < count; n++) {
      if (instanceCpus === undefined) continue;
      groups.push(
        await createCpuGroup({
          purpose: `overload-${kind}-${n + 1}`,
          cpus: instanceCpus,
          periodMicros: QUOTA_PERIOD_MICROS,
        }),
      );
    }
    // Together: each start takes a second or more.
    const started = await Promise.allSettled(
      Array.from({ length: count }, (_, n) =>
        startService({
          env: {
            DATABASE_URL: kind === 'postgres' ? (options.databaseUrl ?? '') : 'memory:',
            SEED_PETS: String(options.seedPets),
            ...(kind === 'fleet' ? { TRUSTED_PROXIES: '127.0.0.1' } : {}),
            ...options.env,
          },
          group: options.warmup === undefined ? groups[n] : undefined,
        }),
      ),
    );
    for (const result of started) if (result.status === 'fulfilled') instances.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    if (kind === 'fleet') {
      balancer = await startBalancer({
        instances: instances.map((instance) => new URL(instance.url).host),
        settings: options.balancerSettings ?? {},
      });
    }
    if (options.warmup !== undefined) {
      // At full speed, sharing the server core, before any quota.
      await options.warmup(balancer?.url ?? (instances[0] as ServiceProcess).url, count);
      for (const [n, instance] of instances.entries()) await groups[n]?.add(instance.pid);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const url = balancer?.url ?? (instances[0] as ServiceProcess).url;
  return {
    url,
    instances,
    balancer,
    cpuSeconds() {
      const used = groups.map((group) => group.usageSeconds());
      return used.length === 0 || used.some((seconds) => seconds === undefined)
        ? {}
        : { instances: used.reduce<number>((sum, seconds) => sum + (seconds ?? 0), 0) };
    },
    probe: async (action, liveAfterMs) =>
      worst(await Promise.all(instances.map((i) => i.probe(action, liveAfterMs)))),
    stop,
  };
}

/** The postmaster of the server at `url`: the parent of one of its backends (a local server). */
export async function postmasterPid(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const stat = readFileSync(`/proc/${rows[0]?.pid}/stat`, 'utf8');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(parent) && parent > 1 ? parent : undefined;
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/**
 * The bench's own PostgreSQL under a quota for a while: its postmaster and every process it has
 * forked move into a group (backends forked later inherit it) and onto the server core; `release`
 * puts them back on every core and removes the group.
 */
export async function quotaPostgres(
  postmaster: number,
  cpus: number,
): Promise<{ group: CpuGroup; release(): Promise<void> }> {
  const group = await createCpuGroup({
    purpose: 'overload-postgres',
    cpus,
    periodMicros: QUOTA_PERIOD_MICROS,
  });
  const pin = (cpuList: string) => {
    if (!canPin) return;
    for (const pid of processTree(postmaster)) {
      spawnSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' });
    }
  };
  await group.addTree(postmaster);
  pin(String(SERVER_CPU));
  return {
    group,
    async release() {
      pin(`0-${Math.max(1, machineCpus().length) - 1}`);
      await group.remove();
    },
  };
}
