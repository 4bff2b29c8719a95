import { startChild } from '../child.js';
import type { BenchConfig } from '../config.js';
import type { Progress } from '../progress.js';
import type { MemoryFootprint } from '../results.js';

const MEMORY_ENTRY = new URL('./memory-child.ts', import.meta.url);

export async function measureMemory(
  config: BenchConfig,
  progress: Progress,
): Promise<MemoryFootprint> {
  progress.log(
    `memory: ${config.memoryPets.toLocaleString('en')} pets in a fresh process (--expose-gc)`,
  );
  const child = await startChild(MEMORY_ENTRY, [], { nodeFlags: ['--expose-gc'] });
  try {
    return (await child.request(
      { type: 'run', pets: config.memoryPets },
      120_000,
    )) as MemoryFootprint;
  } finally {
    await child.stop();
  }
}
