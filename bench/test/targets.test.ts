import { expect, test } from 'vitest';
import type { AdapterOverhead, RunFigures } from '../src/results.js';
import { roundRatios, steadyStateRatio } from '../src/targets.js';

const figures = (rps: number[]): RunFigures => ({
  rps,
  p50Ms: rps.map(() => 1),
  p99Ms: rps.map(() => 2),
  serverCpuMicros: rps.map(() => 30),
  machineCpuMicros: rps.map(() => 50),
  medianRps: 0,
  medianP99Ms: 2,
  medianServerCpuMicros: 30,
  medianMachineCpuMicros: 50,
});

const one = { median: 1, min: 1, max: 1, rounds: [1] };
const row = (bare: number[], ours: number[]): AdapterOverhead => ({
  framework: 'node',
  operation: 'list',
  peer: 'a peer',
  connections: 20,
  secondsPerRun: 5,
  bare: figures(bare),
  ours: figures(ours),
  throughput: one,
  p99: one,
  serverCpu: one,
  throughputRatio: 1,
  p99Ratio: 1,
  serverCpuRatio: 1,
});

const steady = [100, 100, 100, 100];

test('a cold start on most sides fails the steady-state check', () => {
  const cold = [80, 100, 101, 99];
  const rows = [row(cold, cold), row(cold, steady), row(cold, cold)];
  expect(steadyStateRatio(rows)).toBeCloseTo(0.8, 5);
});

test('one noisy run on one side does not: it reads as low in any round', () => {
  const rows = [
    row([70, 100, 100, 100], steady),
    row(steady, [100, 72, 100, 100]),
    row(steady, steady),
  ];
  expect(steadyStateRatio(rows)).toBe(1);
  expect(Math.min(...roundRatios(rows, 0))).toBeCloseTo(0.7, 5);
  expect(Math.min(...roundRatios(rows, 1))).toBeCloseTo(0.72, 5);
});

test("each round is read against the median of the same side's other rounds", () => {
  expect(roundRatios([row([90, 100, 120, 110], [100, 50, 100, 100])], 0)).toEqual([
    0.8181818181818182, 1,
  ]);
  expect(roundRatios([row([90, 100, 120, 110], [100, 50, 100, 100])], 1)).toEqual([100 / 110, 0.5]);
});

test('with one round there is nothing to compare: the check reads 1', () => {
  expect(steadyStateRatio([row([100], [100])])).toBe(1);
});
