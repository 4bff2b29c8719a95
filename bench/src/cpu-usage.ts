import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { processTree } from './cgroup.js';

/**
 * CPU time from /proc (Linux): how much CPU one process, and the whole machine,
 * spent during a run. Divided by the requests served it gives the CPU cost of a
 * request, which a busy or lopsided machine skews far less than req/s does.
 * Elsewhere every reading is undefined and the report leaves the column out.
 */
const ticksPerSecond = (() => {
  const result = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const value = Number(result.stdout?.trim());
  return Number.isFinite(value) && value > 0 ? value : 100;
})();

/**
 * A process's command name and its /proc stat fields from the state on (field 3 is index 0),
 * or undefined once it is gone. The name may hold spaces: fields are counted after its
 * closing parenthesis.
 */
function procStat(pid: string | number): { command: string; fields: string[] } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    return {
      command: stat.slice(stat.indexOf('(') + 1, close),
      fields: stat.slice(close + 2).split(' '),
    };
  } catch {
    return undefined;
  }
}

/** Clock ticks in fields [from, to) of a stat line, in seconds. */
const ticksIn = (fields: readonly string[], from: number, to: number): number =>
  fields.slice(from, to).reduce((sum, field) => sum + Number(field), 0) / ticksPerSecond;

/** utime + stime of a process and all its threads, in seconds. */
export function processCpuSeconds(pid: number): number | undefined {
  const stat = procStat(pid);
  return stat === undefined ? undefined : ticksIn(stat.fields, 11, 13);
}

/**
 * CPU seconds of one PostgreSQL server (its postmaster and every process it forked), or of every
 * `postgres` process on the machine when its postmaster is not known (a server of the user's),
 * with those of children already reaped (the postmaster's cutime + cstime), so the sum only grows
 * while backends and autovacuum workers come and go. Undefined where /proc is missing. Counting
 * one server's tree keeps other PostgreSQL servers on the machine out of the figure.
 */
export function postgresCpuSeconds(postmasterPid?: number): number | undefined {
  let pids: (string | number)[];
  try {
    pids =
      postmasterPid === undefined
        ? readdirSync('/proc').filter((name) => /^\d+$/.test(name))
        : processTree(postmasterPid);
  } catch {
    return undefined;
  }
  let total = 0;
  for (const pid of pids) {
    // One gone between the listing and the read has its time in its parent's cutime by now.
    const stat = procStat(pid);
    // utime, stime, cutime, cstime.
    if (stat?.command === 'postgres') total += ticksIn(stat.fields, 11, 15);
  }
  return total;
}

/** Busy (non-idle) CPU seconds of the whole machine since boot, all cores summed. */
export function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    // cpu user nice system idle iowait irq softirq steal ...: everything but idle and iowait is busy.
    const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const busy = values.reduce(
      (sum, value, index) => (index === 3 || index === 4 ? sum : sum + value),
      0,
    );
    return busy / ticksPerSecond;
  } catch {
    return undefined;
  }
}

export interface CpuSpent {
  /** CPU seconds of the given process during the run. */
  readonly process: number | undefined;
  /** CPU seconds of the whole machine during the run (every process, every core). */
  readonly machine: number | undefined;
}

const delta = (after: number | undefined, before: number | undefined) =>
  after === undefined || before === undefined ? undefined : after - before;

/** CPU seconds of several processes together; undefined when any is gone. */
function processesCpuSeconds(pids: readonly number[]): number | undefined {
  let total = 0;
  for (const pid of pids) {
    const seconds = processCpuSeconds(pid);
    if (seconds === undefined) return undefined;
    total += seconds;
  }
  return total;
}

/**
 * Runs `work` and reports the CPU `pid` (or several processes, summed: the instances of one
 * side) and the machine spent meanwhile.
 */
export async function withCpu<T>(
  pid: number | readonly number[],
  work: () => Promise<T>,
): Promise<{ result: T; cpu: CpuSpent }> {
  const pids = typeof pid === 'number' ? [pid] : pid;
  const processBefore = processesCpuSeconds(pids);
  const machineBefore = machineBusySeconds();
  const result = await work();
  return {
    result,
    cpu: {
      process: delta(processesCpuSeconds(pids), processBefore),
      machine: delta(machineBusySeconds(), machineBefore),
    },
  };
}
