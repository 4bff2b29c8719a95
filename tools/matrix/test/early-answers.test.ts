import { Worker } from 'node:worker_threads';
import type { RunningServer } from '@petstore/conformance';
import { createPetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTS, type Host } from '../src/index.js';

// Answers sent before a 2 MB body is read (413 with a key, 401 without, 415 as text/plain) must
// reach Node's `fetch`, every time, on every host that listens on a socket. The server closes
// those connections lingering (@petstore/node); closed at once, the kernel reset them under the
// client's writes and `fetch` failed with EPIPE before reading the answer it had. The client
// runs in a worker thread: an event loop of its own, as a client in another process has.

const KEY = 'early-answers-key-0123';
const ROUNDS = 20;

const CASES = {
  413: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  401: { 'content-type': 'application/json' },
  415: { authorization: `Bearer ${KEY}`, 'content-type': 'text/plain' },
} as const;

/** The worker: `rounds` POSTs of a 2 MB body per case; each outcome, a status or an error code. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, cases, rounds } = workerData;
const body = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), categoryId: 1 });
(async () => {
  const outcomes = {};
  for (const [expected, headers] of Object.entries(cases)) {
    outcomes[expected] = [];
    for (let n = 0; n < rounds; n++) {
      try {
        const res = await fetch(url, { method: 'POST', headers, body });
        await res.text();
        outcomes[expected].push(String(res.status));
      } catch (error) {
        outcomes[expected].push(error?.cause?.code ?? error?.message ?? String(error));
      }
    }
  }
  parentPort.postMessage(outcomes);
})();
`;

function fetchFromWorker(url: string): Promise<Record<string, string[]>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, {
      eval: true,
      workerData: { url, cases: CASES, rounds: ROUNDS },
    });
    worker.once('message', (outcomes: Record<string, string[]>) => {
      void worker.terminate();
      resolve(outcomes);
    });
    worker.once('error', reject);
  });
}

const listening = Object.entries(HOSTS as Record<string, Host>).filter(
  (entry): entry is [string, Host & Required<Pick<Host, 'listen'>>] =>
    entry[1].listen !== undefined,
);

describe.each(listening)('%s: answers before a 2 MB body is read', (_name, host) => {
  let api: RunningServer;
  beforeAll(async () => {
    const store = createPetStore({ storage: createMemoryStorage(), apiKeys: [KEY] });
    api = await host.listen(store, { mountPath: '/v1' });
  });
  afterAll(() => api.close());

  it(`reach Node's fetch every time: ${ROUNDS} each of 413, 401 and 415`, async () => {
    const outcomes = await fetchFromWorker(`${api.origin}/v1/pets`);
    for (const [expected, seen] of Object.entries(outcomes)) {
      expect(seen, `expected ${expected} every time`).toEqual(
        Array.from({ length: ROUNDS }, () => expected),
      );
    }
  }, 60_000);
});
