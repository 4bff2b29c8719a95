import { expect, test } from 'vitest';
import type { CpuSpent } from '../src/cpu-usage.js';
import { roundOrder } from '../src/interleave.js';
import type { LoadResult } from '../src/load.js';
import { targetCount } from '../src/report.js';
import type { AdapterOverhead } from '../src/results.js';
import { compared, control, type MeasuredRun } from '../src/run-figures.js';
import { adapterTargets, failing } from '../src/targets.js';

const cpu: CpuSpent = { process: 1, machine: 2 };
const runs = (rps: number[], p99 = rps.map(() => 2)): MeasuredRun[] =>
  rps.map((value, index) => ({
    load: {
      rps: value,
      requests: value * 3,
      p50Ms: 1,
      p99Ms: p99[index] ?? 2,
      failures: 0,
    } satisfies LoadResult,
    cpu,
  }));

test('each round turns the order, and every other pass reverses it', () => {
  const orders = [0, 1, 2, 3, 4].map((round) => roundOrder(['a', 'b', 'c'], round).join(''));
  expect(orders).toEqual(['abc', 'bca', 'cab', 'cba', 'acb']);
  // Within n rounds, every server goes first once.
  expect(new Set(orders.slice(0, 3).map((order) => order[0]))).toEqual(new Set(['a', 'b', 'c']));
  // A pair alternates who goes first.
  expect([0, 1, 2, 3].map((round) => roundOrder(['a', 'b'], round)[0])).toEqual([
    'a',
    'b',
    'b',
    'a',
  ]);
});

test('a ratio is the median of per-round ratios, paired by round, with min and max', () => {
  // A drift that slows both sides in round 3 cancels within the pair.
  const row = compared(runs([100, 100, 50, 100, 100]), runs([98, 97, 49, 99, 96]));
  expect(row.throughput.rounds).toEqual([0.98, 0.97, 0.98, 0.99, 0.96]);
  expect(row.throughput.median).toBe(0.98);
  expect(row.throughput.min).toBe(0.96);
  expect(row.throughput.max).toBe(0.99);
  expect(row.throughputRatio).toBe(0.98);
});

test('a control off by more than 5% marks its rows noisy: neither pass nor fail', () => {
  const quiet = control(
    'peer, twice',
    runs([100, 100, 100, 100, 100]),
    runs([101, 99, 102, 98, 100]),
  );
  const loud = control('peer, twice', runs([100, 100, 100, 100, 100]), runs([90, 92, 93, 110, 91]));
  expect(quiet.noisy.throughput).toBe(false);
  expect(loud.noisy.throughput).toBe(true);
  const slow = compared(runs([100, 100, 100, 100, 100]), runs([90, 91, 92, 90, 93]));
  const row = (over: AdapterOverhead['control']): AdapterOverhead => ({
    framework: 'node',
    operation: 'list',
    peer: 'peer',
    connections: 1,
    secondsPerRun: 1,
    ...slow,
    control: over,
  });
  const [onQuiet] = adapterTargets(row(quiet));
  const [onLoud] = adapterTargets(row(loud));
  expect(onQuiet).toMatchObject({ pass: false, min: 0.9, max: 0.93 });
  expect(onQuiet && failing(onQuiet)).toBe(true);
  expect(onLoud).toMatchObject({ pass: false, noisy: true });
  expect(onLoud && failing(onLoud)).toBe(false);
  expect(targetCount([...adapterTargets(row(quiet)), ...adapterTargets(row(loud))])).toBe(
    '2 of 4 targets hold, 1 fails, 1 noisy',
  );
});

test('the raw row has no target: it reports what the contract costs', () => {
  const raw = compared(runs([100]), runs([50]));
  expect(
    adapterTargets({
      framework: 'raw',
      operation: 'list',
      peer: 'raw',
      connections: 1,
      secondsPerRun: 1,
      ...raw,
    }),
  ).toEqual([]);
});
