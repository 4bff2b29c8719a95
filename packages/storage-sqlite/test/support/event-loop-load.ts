import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createPetStore, type PetStorage } from '@petstore/core';
import { petStoreListener } from '@petstore/node';
import { createMemoryStorage } from '@petstore/storage-memory';
import { createSqliteStorage } from '../../src/index.js';

export interface LoadOptions {
  /** The storage to serve: SQLite in a new file, or memory for comparison. */
  readonly storage: 'sqlite' | 'memory';
  /** The database file (created) for SQLite. */
  readonly path: string;
  /** How long the load runs. */
  readonly durationMs: number;
  /** Concurrent HTTP clients, in a worker thread (their own event loop, not the server's). */
  readonly clients: number;
  /** Pets in the file before the load starts. */
  readonly seedPets: number;
}

export interface LoadReport {
  readonly requests: number;
  readonly lists: number;
  readonly creates: number;
  readonly failures: number;
  readonly requestsPerSecond: number;
  /** Event-loop delay of the serving thread during the load, in milliseconds. */
  readonly delayMs: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Median time of one `listPets({ limit: 101 })` on its own (the synchronous part), in µs. */
  readonly listOf101Us: number;
  /** Median time of one keyed create on its own, in µs. */
  readonly keyedCreateUs: number;
}

const KEY = 'event-loop-bench-key-0123';

// The clients: each loops GET /pets?limit=100 (every other one by status) and POST /pets with an
// Idempotency-Key, three lists to one create, until the time is up.
const CLIENTS = `
const { parentPort, workerData } = require('node:worker_threads');
const { origin, clients, durationMs, key } = workerData;
const auth = { authorization: 'Bearer ' + key };
const until = Date.now() + durationMs;
let lists = 0, creates = 0, failures = 0;
async function client(c) {
  for (let n = 0; Date.now() < until; n++) {
    try {
      if (n % 4 === 3) {
        const res = await fetch(origin + '/v1/pets', { method: 'POST', headers: { ...auth,
          'content-type': 'application/json', 'idempotency-key': 'k-' + c + '-' + n },
          body: JSON.stringify({ name: 'load-' + c + '-' + n, categoryId: 1 }) });
        await res.arrayBuffer();
        if (res.status === 201) creates++; else failures++;
      } else {
        const query = n % 2 === 0 ? 'limit=100' : 'limit=100&status=available';
        const res = await fetch(origin + '/v1/pets?' + query, { headers: auth });
        await res.arrayBuffer();
        if (res.status === 200) lists++; else failures++;
      }
    } catch { failures++; }
  }
}
Promise.all(Array.from({ length: clients }, (_, c) => client(c))).then(() =>
  parentPort.postMessage({ lists, creates, failures }));
`;

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * Serves the storage over node:http and measures how long this thread's event loop is held up
 * while clients list pages of 100 and create pets: node:sqlite runs each call synchronously on
 * this thread, so this is what a request waiting behind another one sees.
 */
export async function measureEventLoopDelay(options: LoadOptions): Promise<LoadReport> {
  const storage: PetStorage =
    options.storage === 'sqlite'
      ? createSqliteStorage({ path: options.path })
      : createMemoryStorage();
  const statuses = ['available', 'pending', 'sold'] as const;
  for (let n = 0; n < options.seedPets; n += 1) {
    await storage.createPet({
      name: `seed-${n}`,
      categoryId: (n % 50) + 1,
      status: statuses[n % 3] ?? 'sold',
    });
  }
  const listTimes: number[] = [];
  const createTimes: number[] = [];
  for (let n = 0; n < 200; n += 1) {
    const afterId = (n * 97) % Math.max(1, options.seedPets - 200);
    let started = performance.now();
    await storage.listPets({ afterId, limit: 101 });
    listTimes.push(performance.now() - started);
    started = performance.now();
    await storage.createPetIdempotent(
      { name: `timed-${n}`, categoryId: 1, status: 'available' },
      { scope: 'bench', key: `timed-${n}`, fingerprint: 'f', retentionMs: 60_000 },
    );
    createTimes.push(performance.now() - started);
  }

  const store = createPetStore({ storage, apiKeys: [KEY] });
  const server = createServer(petStoreListener(store, { mountPath: '/v1' }));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const started = performance.now();
  const worker = new Worker(CLIENTS, {
    eval: true,
    workerData: {
      origin: `http://127.0.0.1:${port}`,
      clients: options.clients,
      durationMs: options.durationMs,
      key: KEY,
    },
  });
  const [counts] = (await once(worker, 'message')) as [
    { lists: number; creates: number; failures: number },
  ];
  const seconds = (performance.now() - started) / 1000;
  histogram.disable();
  await worker.terminate();
  server.closeAllConnections();
  server.close();
  await storage.close();
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const requests = counts.lists + counts.creates + counts.failures;
  return {
    requests,
    ...counts,
    requestsPerSecond: Math.round(requests / seconds),
    delayMs: {
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
    },
    listOf101Us: Math.round(median(listTimes) * 1000),
    keyedCreateUs: Math.round(median(createTimes) * 1000),
  };
}
