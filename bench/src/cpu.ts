import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/**
 * CPU pinning with `taskset` (Linux): the servers get one core, the load generator
 * the other, so neither steals from the one it measures. Where `taskset` or a second
 * core is missing, nothing is pinned and the report says so.
 */
export const canPin: boolean =
  availableParallelism() >= 2 && spawnSync('taskset', ['-p', String(process.pid)]).status === 0;

/** The core for server processes; the main process (load generator) takes core 0. */
export const SERVER_CPU = 1;
export const LOAD_CPU = 0;

/** Pins every thread of this process; children started afterwards inherit it unless pinned themselves. */
export function pinSelf(cpu: number): boolean {
  if (!canPin) return false;
  return spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(process.pid)]).status === 0;
}

/** The command line for a process pinned to `cpu` (or unpinned where pinning is unavailable). */
export function pinnedCommand(
  cpu: number,
  command: string,
  args: readonly string[],
): [string, string[]] {
  return canPin ? ['taskset', ['-c', String(cpu), command, ...args]] : [command, [...args]];
}
