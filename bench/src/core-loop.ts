/**
 * `handle()` in a loop, for profiling the core without HTTP:
 *   node --cpu-prof --conditions=@petstore/source --import tsx src/core-loop.ts list 5
 * Prints calls per second; the profile lands in the working directory.
 * For section 2's ratios alone (handle() against its baseline): src/core-alone-run.ts.
 */
import { coreRequests } from './measurements/core-alone.js';
import { loopStore, seededMemoryStorage } from './servers/ours.js';

const operation = process.argv[2] === 'create' ? 'create' : 'list';
const seconds = Math.min(60, Number(process.argv[3] ?? 5));
const store = loopStore(await seededMemoryStorage());
const request = coreRequests[operation];
const deadline = performance.now() + seconds * 1000;
const started = performance.now();
let calls = 0;
while (calls < 50_000_000 && ((calls & 255) !== 0 || performance.now() < deadline)) {
  await store.handle(request());
  calls++;
}
const rate = calls / ((performance.now() - started) / 1000);
process.stdout.write(
  `${operation}: ${Math.round(rate)} calls/s (${(1e6 / rate).toFixed(2)} µs per call)\n`,
);
