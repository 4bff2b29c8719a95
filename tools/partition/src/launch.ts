import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { takeClusterLock } from '@petstore/cluster';
import { createNetwork, namespaceOf, removeNetwork } from './network.js';
import type { PartitionConfig, PartitionSummary } from './run.js';

// From this machine's own namespace: takes the one-cluster lock, makes the network (removing
// what an earlier run left), runs the driver inside its namespace, and removes the network
// again whatever happened (and at exit, should this process end first). Needs root.

const HERE = fileURLToPath(new URL('..', import.meta.url));
const DRIVER = fileURLToPath(new URL('./driver.ts', import.meta.url));

/** Why a partition run cannot be made here, or undefined; under CI=true that is an error. */
export function cannotRun(): string | undefined {
  const why = process.getuid?.() === 0 ? undefined : 'network namespaces need root';
  if (why !== undefined && process.env.CI === 'true') throw new Error(`tools/partition: ${why}`);
  return why;
}

export async function runPartition(
  config: PartitionConfig,
  lockWaitMs = 600_000,
): Promise<PartitionSummary> {
  const unlock = await takeClusterLock(lockWaitMs);
  const onExit = () => removeNetwork();
  process.once('exit', onExit);
  const dir = await mkdtemp(join(tmpdir(), 'petstore-partition-'));
  try {
    createNetwork();
    const configFile = join(dir, 'config.json');
    await writeFile(configFile, JSON.stringify(config));
    const child = spawn(
      'ip',
      [
        'netns',
        'exec',
        namespaceOf('cl'),
        process.execPath,
        '--import',
        'tsx',
        '--conditions=@petstore/source',
        DRIVER,
        configFile,
      ],
      { cwd: HERE, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const killDriver = () => child.kill('SIGKILL');
    process.once('exit', killDriver);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    process.off('exit', killDriver);
    if (code !== 0) throw new Error(`the partition driver exited with ${code}`);
    return JSON.parse(
      await readFile(join(config.out, `${config.name}.json`), 'utf8'),
    ) as PartitionSummary;
  } finally {
    removeNetwork();
    process.off('exit', onExit);
    await rm(dir, { recursive: true, force: true });
    await unlock();
  }
}
