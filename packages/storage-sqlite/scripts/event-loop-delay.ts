// How long node:sqlite's synchronous calls hold up the event loop under load:
//   npx -y pnpm@10 --filter @petstore/storage-sqlite bench:event-loop [seconds] [clients]
// Serves 10,000 pets over node:http, from a SQLite file and then from memory (the same load, for
// comparison: what the machine and the HTTP stack cost without node:sqlite); clients in a worker
// thread list pages of 100 (half of them by status) and create pets with an Idempotency-Key,
// three lists to one create.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureEventLoopDelay } from '../test/support/event-loop-load.js';

const [seconds = '10', clients = '16'] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'petstore-sqlite-bench-'));
try {
  for (const storage of ['sqlite', 'memory'] as const) {
    const report = await measureEventLoopDelay({
      storage,
      path: join(dir, 'bench.db'),
      durationMs: Number(seconds) * 1000,
      clients: Number(clients),
      seedPets: 10_000,
    });
    console.log(
      `${storage} on Node ${process.version}, ${clients} clients, ${seconds} s: ${report.requests} requests ` +
        `(${report.lists} lists of 100, ${report.creates} keyed creates, ${report.failures} failed), ` +
        `${report.requestsPerSecond}/s\n` +
        `event-loop delay: p50 ${report.delayMs.p50} ms, p99 ${report.delayMs.p99} ms, max ${report.delayMs.max} ms\n` +
        `one listPets({ limit: 101 }): ${report.listOf101Us} µs; one keyed create: ${report.keyedCreateUs} µs (medians)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
