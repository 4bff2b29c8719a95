import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CgroupUnavailableError,
  type CpuGroup,
  cpuGroupUnsupported,
  createCpuGroup,
  processTree,
} from '../src/cgroup.js';

// The real cgroup tests need root and a writable v1 cpu controller; elsewhere they are skipped,
// and the reason is the test's name.
const unsupported = cpuGroupUnsupported();
const started: ChildProcess[] = [];
const groups: CpuGroup[] = [];
afterEach(async () => {
  for (const group of groups.splice(0)) await group.remove();
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

const spawned = (command: string, args: string[]): ChildProcess => {
  const child = spawn(command, args, { stdio: 'ignore' });
  started.push(child);
  return child;
};
/** The process's group in the cpu hierarchy, from /proc/<pid>/cgroup. */
const cpuGroupOf = (pid: number): string =>
  readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((line) => /^\d+:cpu:/.test(line))
    ?.split(':')[2] ?? '?';

describe('createCpuGroup where no cpu controller is mounted', () => {
  it('fails clearly, and says why for the skip note', async () => {
    const root = await mkdtemp(join(tmpdir(), 'petstore-no-cgroup-'));
    try {
      const reason = cpuGroupUnsupported(root);
      expect(reason).toMatch(/needs root|no cgroup v1 cpu controller/);
      const error = await createCpuGroup({ purpose: 'test', cpus: 0.5, root }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CgroupUnavailableError);
      expect((error as Error).message).toBe(reason);
    } finally {
      await rm(root, { recursive: true });
    }
  });
});

describe.skipIf(unsupported !== undefined)(
  `a CPU quota with the cgroup v1 cpu controller${unsupported === undefined ? '' : ` (skipped: ${unsupported})`}`,
  () => {
    it('holds a busy process to its quota, counts its CPU, and is removed with the process moved back', async () => {
      const group = await createCpuGroup({ purpose: 'test', cpus: 0.2, periodMicros: 50_000 });
      groups.push(group);
      expect(group.name).toMatch(new RegExp(`^petstore-test-${process.pid}-[0-9a-f]{8}$`));
      expect(readFileSync(join(group.path, 'cpu.cfs_quota_us'), 'utf8').trim()).toBe('10000');
      expect(readFileSync(join(group.path, 'cpu.cfs_period_us'), 'utf8').trim()).toBe('50000');

      const busy = spawned(process.execPath, ['-e', 'for (;;) {}']);
      const pid = busy.pid ?? 0;
      await group.add(pid);
      expect(group.pids()).toEqual([pid]);
      expect(cpuGroupOf(pid)).toBe(`/${group.name}`);
      await sleep(1_000);
      // A spinning process would take a whole second of CPU; the quota gives it 0.2 s.
      const usage = group.usageSeconds();
      if (usage !== undefined) expect(usage).toBeLessThan(0.4);
      expect(group.stat().throttledPeriods).toBeGreaterThan(0);

      await group.remove();
      expect(existsSync(group.path)).toBe(false);
      expect(busy.exitCode).toBeNull();
      expect(cpuGroupOf(pid)).toBe('/');
      await group.remove(); // a second time does nothing
    });

    it('takes a process tree: the parent and the children it has now', async () => {
      const group = await createCpuGroup({ purpose: 'test', cpus: 0.5 });
      groups.push(group);
      const shell = spawned('sh', ['-c', 'sleep 30 & sleep 30 & wait']);
      const pid = shell.pid ?? 0;
      // Until the shell has forked both sleeps.
      for (let tries = 0; processTree(pid).length < 3 && tries < 100; tries += 1) await sleep(20);
      const tree = await group.addTree(pid);
      expect(tree).toHaveLength(3);
      expect(group.pids().sort()).toEqual([...tree].sort());
      // Both sleeps are in it too, and go back with it.
      await group.remove();
      for (const member of tree) expect(cpuGroupOf(member)).toBe('/');
    });

    it('refuses a quota below 1 ms per period and a purpose that is not a plain word', async () => {
      await expect(createCpuGroup({ purpose: 'test', cpus: 0.001 })).rejects.toThrow(RangeError);
      await expect(createCpuGroup({ purpose: '../x', cpus: 0.5 })).rejects.toThrow(TypeError);
    });
  },
);
