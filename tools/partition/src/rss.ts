import { readdirSync, readFileSync } from 'node:fs';

// Memory of the run's processes over time, from /proc: a process's resident set (VmRSS), or for
// PostgreSQL, the proportional set (Pss) of the postmaster and all its children summed, so the
// shared buffers count once rather than once per backend.

export interface RssSample {
  readonly t: number;
  readonly process: string;
  readonly mb: number;
}

/** A process to watch: its name on the chart and how to find its PID now (it may change). */
export interface Watched {
  readonly name: string;
  readonly pid: () => number | undefined;
  /** Sum the postmaster's children too (Pss). */
  readonly tree?: boolean;
}

function field(path: string, name: string): number | undefined {
  try {
    const line = readFileSync(path, 'utf8')
      .split('\n')
      .find((row) => row.startsWith(`${name}:`));
    const kb = Number(line?.split(/\s+/)[1]);
    return Number.isFinite(kb) ? kb : undefined;
  } catch {
    return undefined;
  }
}

function childrenOf(parent: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) found.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** One sample of each watched process that runs now, in MB. */
export function sampleRss(t: number, watched: readonly Watched[]): RssSample[] {
  const samples: RssSample[] = [];
  for (const { name, pid, tree } of watched) {
    const root = pid();
    if (root === undefined) continue;
    const kb =
      tree === true
        ? [root, ...childrenOf(root)]
            .map((p) => field(`/proc/${p}/smaps_rollup`, 'Pss') ?? 0)
            .reduce((a, b) => a + b, 0)
        : (field(`/proc/${root}/status`, 'VmRSS') ?? 0);
    if (kb > 0) samples.push({ t, process: name, mb: Math.round(kb / 102.4) / 10 });
  }
  return samples;
}
