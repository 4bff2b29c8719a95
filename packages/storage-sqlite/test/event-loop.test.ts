import { expect, it } from 'vitest';
import { measureEventLoopDelay } from './support/event-loop-load.js';
import { tempFolder } from './support/files.js';

// node:sqlite answers on this thread. A page of 100 must be short enough that requests queued
// behind it barely wait. The same load over the memory storage is the yardstick: what the
// machine (shared with other tests), HTTP and the core cost without node:sqlite. The bounds sit
// far above what a quiet machine measures (README: "The event loop"), and far below what a call
// that scanned the table would cost.
const folder = tempFolder('event-loop');

it('serving lists of 100 and keyed creates keeps the event-loop delay short', async () => {
  const load = { path: folder.file(), durationMs: 2000, clients: 8, seedPets: 10_000 };
  const sqlite = await measureEventLoopDelay({ ...load, storage: 'sqlite' });
  const memory = await measureEventLoopDelay({ ...load, storage: 'memory' });
  console.info(
    `event loop under load: sqlite ${JSON.stringify(sqlite)}, memory ${JSON.stringify(memory)}`,
  );
  expect(sqlite.failures).toBe(0);
  expect(sqlite.lists).toBeGreaterThan(50);
  expect(sqlite.creates).toBeGreaterThan(15);
  expect(sqlite.listOf101Us).toBeLessThan(5000);
  expect(sqlite.keyedCreateUs).toBeLessThan(5000);
  expect(sqlite.delayMs.p99).toBeLessThan(Math.max(100, 3 * memory.delayMs.p99));
}, 60_000);
