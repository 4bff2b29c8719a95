import { expect, test } from 'vitest';
import type { AdapterOverhead, RunFigures } from '../src/results.js';
import {
  adapterTargets,
  roundRatios,
  steadyStateRatio,
  wireTargets,
  writeCeilingTargets,
} from '../src/targets.js';

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

test('bytes to PostgreSQL: ours over the peer per workload, at most 1.10', () => {
  const wire = (workload: 'create' | 'list', side: 'peer' | 'ours', bytes: number) => ({
    workload,
    side,
    requests: 100,
    bytesToDatabase: bytes,
    bytesFromDatabase: 1,
    roundTrips: 1,
  });
  const targets = wireTargets([
    wire('create', 'peer', 100),
    wire('create', 'ours', 110),
    wire('list', 'peer', 80),
    wire('list', 'ours', 120),
  ]);
  expect(targets.map((t) => [t.name, t.actual, t.pass])).toEqual([
    ['postgres direct create: bytes to PostgreSQL per request ours/hand-written', 1.1, true],
    ['postgres direct list: bytes to PostgreSQL per request ours/hand-written', 1.5, false],
  ]);
});

test('node create carries a server CPU target of 1.03; other rows do not', () => {
  const create: AdapterOverhead = {
    ...row(steady, steady),
    operation: 'create',
    serverCpu: { median: 1.04, min: 1, max: 1.1, rounds: [1, 1.04, 1.1] },
  };
  const cpu = adapterTargets(create).find((t) => t.name.includes('server CPU'));
  expect(cpu).toMatchObject({ target: '<= 1.03', actual: 1.04, pass: false, min: 1, max: 1.1 });
  expect(adapterTargets(row(steady, steady)).some((t) => t.name.includes('CPU'))).toBe(false);
});

test('the write ceiling: ours over the peer at least 0.95, noisy with its control or short of its quota; none when skipped', () => {
  expect(writeCeilingTargets({ skipped: 'no quota' })).toEqual([]);
  const spreadOf = (median: number) => ({ median, min: median, max: median, rounds: [median] });
  const ceiling = {
    ...row(steady, steady),
    cpus: 0.25,
    periodMicros: 20_000,
    instances: 2,
    poolMax: 8,
    rounds: 1,
    throughput: spreadOf(0.96),
    control: { what: 'copy', throughput: one, p99: one, noisy: { throughput: true, p99: false } },
    postgresCpuMicros: { bare: 1, ours: 1 },
    postgresCpu: one,
    quotaUsed: { bare: 1, ours: 1 },
    throttledPeriods: 10,
    tablesWithoutAutovacuum: 10,
  };
  expect(writeCeilingTargets(ceiling)).toEqual([
    {
      name: 'postgres write ceiling (0.25 CPU): keyed creates/s ours/hand-written',
      target: '>= 0.95',
      actual: 0.96,
      pass: true,
      min: 0.96,
      max: 0.96,
      noisy: true,
    },
  ]);
  const quiet = { ...ceiling.control, noisy: { throughput: false, p99: false } };
  expect(writeCeilingTargets({ ...ceiling, control: quiet })[0]?.noisy).toBeUndefined();
  // PostgreSQL short of its quota on one side: that side was not at its ceiling.
  const starved = { ...ceiling, control: quiet, quotaUsed: { bare: 0.97, ours: 0.7 } };
  expect(writeCeilingTargets(starved)[0]?.noisy).toBe(true);
});
