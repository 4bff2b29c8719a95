// Sends a seeded fuzz run to each example app, started as a real process, and prints the
// answers per status: `pnpm fuzz [count] [seed]` (default 10000 requests per app).
import { fileURLToPath } from 'node:url';
import { fuzzRequests, runFuzz } from '../testing/fuzz.js';
import { killStartedApps, startListening } from '../testing/process.js';

const count = Number(process.argv[2] ?? 10_000);
const seed = Number(process.argv[3] ?? 20_261_123);
const KEY = 'fuzz-script-key-0123456789';
const apps = ['express-app', 'hapi-app'] as const;

let failed = false;
try {
  for (const name of apps) {
    const appDir = fileURLToPath(new URL(`../../${name}/`, import.meta.url));
    const app = await startListening(appDir, { API_KEYS: KEY, LOG_LEVEL: 'silent' });
    const started = performance.now();
    const result = await runFuzz(Number(new URL(app.origin).port), fuzzRequests(KEY, count, seed));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const counts = Object.entries(result.counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => `${status}: ${n}`)
      .join(', ');
    const alive = app.child.exitCode === null && app.child.signalCode === null;
    console.log(`${name}: ${count} requests (seed ${seed}) in ${seconds} s; ${counts}`);
    console.log(`${name}: still running: ${alive}; wrong answers: ${result.failures.length}`);
    for (const { request, problem } of result.failures) console.log(`  ${problem}: ${request}`);
    failed ||= !alive || result.failures.length > 0;
    app.signal('SIGTERM');
    const code = await app.exited;
    console.log(`${name}: exit code after SIGTERM: ${code}`);
    failed ||= code !== 0;
  }
} finally {
  killStartedApps();
}
process.exitCode = failed ? 1 : 0;
