import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

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

/** utime + stime of a process and all its threads, in seconds. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of every `postgres` process on the machine, with those of children already
 * reaped (the postmaster's cutime + cstime), so the sum only grows while backends and
 * autovacuum workers come and go. Undefined where /proc is missing.
 */
export function postgresCpuSeconds(): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let total = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
    } catch {
      // Gone between the listing and the read: its time is in its parent's cutime by now.
    }
  }
  return total / ticksPerSecond;
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

/** Runs `work` and reports the CPU `pid` and the machine spent meanwhile. */
export async function withCpu<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; cpu: CpuSpent }> {
  const processBefore = processCpuSeconds(pid);
  const machineBefore = machineBusySeconds();
  const result = await work();
  return {
    result,
    cpu: {
      process: delta(processCpuSeconds(pid), processBefore),
      machine: delta(machineBusySeconds(), machineBefore),
    },
  };
}
