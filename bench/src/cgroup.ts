/**
 * A CPU quota for some processes, through the cgroup v1 `cpu` controller (Linux, as root): a
 * child group with `cpu.cfs_quota_us` / `cpu.cfs_period_us`, pids written to its `cgroup.procs`
 * (children forked afterwards stay in it: a postmaster's new backends inherit the quota), and
 * the group removed afterwards, its processes moved back to the parent first. Where the `cpuacct`
 * controller is mounted too (with `cpu`, or as a hierarchy of its own), a twin group there counts
 * the CPU the processes spent.
 *
 * Used by the bench to give PostgreSQL (or a server) a fixed CPU budget, the load generator
 * outside it. Every group is named `petstore-<purpose>-<pid>-<random>`: other processes on the
 * machine may hold groups of their own, and only ours are ever removed.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Where cgroup v1 hierarchies are mounted on Linux. */
export const CGROUP_ROOT = '/sys/fs/cgroup';

/** Why a quota cannot be set here: not root, no v1 cpu controller, or it is read-only. */
export class CgroupUnavailableError extends Error {
  override readonly name = 'CgroupUnavailableError';
}

export interface CpuGroupOptions {
  /** A word saying what the group is for, in its name: letters, digits and `-`. */
  readonly purpose: string;
  /** The budget, in CPUs: 0.5 is half of one core's time per period. */
  readonly cpus: number;
  /** The period the quota applies to, in µs (1,000 to 1,000,000). Default 100,000. */
  readonly periodMicros?: number;
  /** The cgroup mounts. Default /sys/fs/cgroup (tests point it elsewhere). */
  readonly root?: string;
}

/** `cpu.stat` of the group: periods run, periods throttled, and time throttled. */
export interface CpuGroupStat {
  readonly periods: number;
  readonly throttledPeriods: number;
  readonly throttledSeconds: number;
}

export interface CpuGroup {
  /** The group's name, the same in every hierarchy it is made in. */
  readonly name: string;
  /** Its folder in the cpu hierarchy. */
  readonly path: string;
  /** The quota and period as written. */
  readonly quotaMicros: number;
  readonly periodMicros: number;
  /** Moves these processes (all their threads) into the group. */
  add(...pids: number[]): Promise<void>;
  /** Moves a process and every descendant it has now into the group. */
  addTree(pid: number): Promise<number[]>;
  /** The pids in the group now. */
  pids(): number[];
  /** CPU seconds the group's processes spent since it was made; undefined without cpuacct. */
  usageSeconds(): number | undefined;
  stat(): CpuGroupStat;
  /** Moves every process back to the parent group and removes the group (idempotent). */
  remove(): Promise<void>;
}

/** Where the cpu and cpuacct hierarchies are, or why there is no usable cpu hierarchy. */
interface Mounts {
  readonly cpu: string;
  /** The cpuacct hierarchy: the same folder when co-mounted, undefined when absent. */
  readonly cpuacct: string | undefined;
}

function mounts(root: string): Mounts | string {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return `needs root (uid ${process.getuid()}) to make a cgroup`;
  }
  const cpu = join(root, 'cpu');
  if (!existsSync(join(cpu, 'cpu.cfs_quota_us'))) {
    return `no cgroup v1 cpu controller at ${cpu} (cpu.cfs_quota_us missing)`;
  }
  try {
    accessSync(cpu, constants.W_OK);
  } catch {
    return `${cpu} is not writable`;
  }
  const cpuacct = existsSync(join(cpu, 'cpuacct.usage'))
    ? cpu
    : existsSync(join(root, 'cpuacct', 'cpuacct.usage'))
      ? join(root, 'cpuacct')
      : undefined;
  return { cpu, cpuacct };
}

/** Undefined when a quota can be set here; else why not (for a note in the results). */
export function cpuGroupUnsupported(root = CGROUP_ROOT): string | undefined {
  const found = mounts(root);
  return typeof found === 'string' ? found : undefined;
}

const PURPOSE = /^[a-z0-9-]{1,40}$/;

const readPids = (dir: string): number[] =>
  readFileSync(join(dir, 'cgroup.procs'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map(Number);

/** `pid` and every descendant it has now, parents first, from one pass over /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): state, then the parent's pid.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // Gone between the listing and the read.
    }
  }
  const tree = [pid];
  for (let index = 0; index < tree.length; index += 1) {
    tree.push(...(children.get(tree[index] ?? -1) ?? []));
  }
  return tree;
}

/** Moves each pid into a hierarchy's folder; a process that has exited meanwhile is skipped. */
async function moveInto(dir: string, pids: readonly number[]): Promise<void> {
  for (const pid of pids) {
    try {
      await writeFile(join(dir, 'cgroup.procs'), String(pid));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }
}

/**
 * Empties a group into its parent, then removes it. A process may fork meanwhile, and one that
 * has just exited keeps the group busy (EBUSY) for a moment after it left `cgroup.procs`: both
 * are tried again, for up to 5 s.
 */
async function removeGroup(dir: string, parent: string): Promise<void> {
  for (let pass = 0; existsSync(dir); pass += 1) {
    await moveInto(parent, readPids(dir));
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY' || pass >= 100) throw error;
      await sleep(50);
    }
  }
}

/**
 * A new group with `cpus` of CPU time per period. Throws CgroupUnavailableError, saying why,
 * when this machine or user cannot make one (see cpuGroupUnsupported).
 */
export async function createCpuGroup(options: CpuGroupOptions): Promise<CpuGroup> {
  const found = mounts(options.root ?? CGROUP_ROOT);
  if (typeof found === 'string') throw new CgroupUnavailableError(found);
  if (!PURPOSE.test(options.purpose)) {
    throw new TypeError(`a group's purpose is letters, digits and -, got ${options.purpose}`);
  }
  const periodMicros = options.periodMicros ?? 100_000;
  if (!Number.isInteger(periodMicros) || periodMicros < 1_000 || periodMicros > 1_000_000) {
    throw new RangeError(`periodMicros must be 1,000 to 1,000,000, got ${periodMicros}`);
  }
  const quotaMicros = Math.round(options.cpus * periodMicros);
  if (!Number.isFinite(options.cpus) || quotaMicros < 1_000) {
    throw new RangeError(`cpus must give a quota of at least 1 ms per period, got ${options.cpus}`);
  }
  const name = `petstore-${options.purpose}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const path = join(found.cpu, name);
  const accounting =
    found.cpuacct === undefined || found.cpuacct === found.cpu
      ? undefined
      : join(found.cpuacct, name);
  await mkdir(path);
  try {
    if (accounting !== undefined) await mkdir(accounting);
    // The period first: a quota is checked against the period in force.
    await writeFile(join(path, 'cpu.cfs_period_us'), String(periodMicros));
    await writeFile(join(path, 'cpu.cfs_quota_us'), String(quotaMicros));
  } catch (error) {
    await rmdir(path).catch(() => undefined);
    if (accounting !== undefined) await rmdir(accounting).catch(() => undefined);
    throw error;
  }
  const usageFile =
    found.cpuacct === undefined ? undefined : join(accounting ?? path, 'cpuacct.usage');
  const readUsage = (): number | undefined =>
    usageFile === undefined ? undefined : Number(readFileSync(usageFile, 'utf8')) / 1e9;
  const startUsage = readUsage() ?? 0;
  let removed: Promise<void> | undefined;

  const add = async (...pids: number[]): Promise<void> => {
    if (removed !== undefined) throw new Error(`cgroup ${name} was removed`);
    await moveInto(path, pids);
    if (accounting !== undefined) await moveInto(accounting, pids);
  };
  return {
    name,
    path,
    quotaMicros,
    periodMicros,
    add,
    async addTree(pid: number): Promise<number[]> {
      const tree = processTree(pid);
      await add(...tree);
      return tree;
    },
    pids: () => readPids(path),
    usageSeconds() {
      const usage = readUsage();
      return usage === undefined ? undefined : usage - startUsage;
    },
    stat(): CpuGroupStat {
      const fields = new Map(
        readFileSync(join(path, 'cpu.stat'), 'utf8')
          .split('\n')
          .map((line) => line.split(' ') as [string, string]),
      );
      const number = (key: string) => Number(fields.get(key) ?? 0);
      return {
        periods: number('nr_periods'),
        throttledPeriods: number('nr_throttled'),
        throttledSeconds: number('throttled_time') / 1e9,
      };
    },
    remove(): Promise<void> {
      removed ??= (async () => {
        await removeGroup(path, found.cpu);
        if (accounting !== undefined && found.cpuacct !== undefined) {
          await removeGroup(accounting, found.cpuacct);
        }
      })();
      return removed;
    },
  };
}
