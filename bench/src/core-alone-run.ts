/**
 * Section 2 (core alone) by itself, with the full run's rounds and durations,
 * for checking a change to the core without the whole bench:
 *   node --conditions=@petstore/source --import tsx src/core-alone-run.ts
 * Prints each operation's µs per call, its baseline and the ratio; writes no results.
 */
import { FULL } from './config.js';
import { measureCoreAlone } from './measurements/core-alone.js';
import { Progress } from './progress.js';

const results = await measureCoreAlone(FULL, new Progress());
for (const result of results) {
  process.stdout.write(
    `${result.operation}: handle ${result.microsPerCall.toFixed(2)} µs, baseline ${result.baselineMicrosPerCall.toFixed(2)} µs, ratio ${result.ratio.toFixed(2)}\n`,
  );
}
