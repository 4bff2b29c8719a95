/**
 * Bytes per pet in the memory storage: heap (and off-heap typed-array memory)
 * after a full GC with N pets, minus the same before them, divided by N. Runs in
 * its own process with --expose-gc so nothing else lives on that heap.
 */
import { createMemoryStorage } from '@petstore/storage-memory';
import { childChannel } from '../child.js';
import { seedPet } from '../fixtures.js';

const collect = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  // Twice: the first pass can leave garbage that only a second one frees (weak refs, finalisers).
  gc();
  gc();
};

const used = () => {
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed, external: usage.external };
};

async function measure(pets: number) {
  collect();
  const before = used();
  const storage = createMemoryStorage();
  for (let id = 1; id <= pets; id++) await storage.createPet(seedPet(id));
  collect();
  const after = used();
  // Keep the storage reachable until after the measurement.
  const last = await storage.getPet(pets);
  if (last?.id !== pets) throw new Error('the storage lost pets');
  const heapBytes = after.heap - before.heap;
  const externalBytes = after.external - before.external;
  return {
    pets,
    heapBytes,
    externalBytes,
    bytesPerPet: (heapBytes + externalBytes) / pets,
    nameExample: seedPet(pets).name,
  };
}

const send = childChannel(async () => undefined);
send({ type: 'ready' });
process.on('message', (message: { type?: string; pets?: number }) => {
  if (message.type !== 'run') return;
  measure(message.pets ?? 0).then(
    (value) => send({ type: 'result', value }),
    (error: unknown) => send({ type: 'error', message: String(error) }),
  );
});
