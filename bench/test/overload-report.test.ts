import { expect, test } from 'vitest';
import type { OverloadLevel, OverloadResults } from '../src/measurements/overload.js';
import type { LatencySummary, OpenLoopResult } from '../src/open-loop.js';
import { renderOverloadMarkdown } from '../src/overload-report.js';
import { overloadTargets } from '../src/targets.js';

const latency = (p99Ms: number, count = 100): LatencySummary => ({
  count,
  p50Ms: p99Ms / 2,
  p99Ms,
  maxMs: p99Ms,
});

function level(
  multiple: number,
  figures: { ok: number; shed: number; p99Ms: number; lost?: number; heapMiB: number },
): OverloadLevel {
  const capacity = 1000;
  const scheduled = multiple * capacity;
  const lost = figures.lost ?? 0;
  const load: OpenLoopResult = {
    offeredRps: scheduled,
    sentRps: scheduled - lost,
    goodputRps: figures.ok,
    seconds: 1,
    sendWindowSeconds: 1,
    elapsedSeconds: 1.01,
    scheduled,
    sent: scheduled - lost,
    dropped: lost,
    unsent: 0,
    timedOut: 0,
    errors: 0,
    status: { '2xx': figures.ok, '503': figures.shed, other: 0 },
    latency2xx: latency(figures.p99Ms),
    latency503: latency(1),
    latencyAnswered: latency(figures.p99Ms),
    sendLag: { p50Ms: 0.1, p99Ms: 0.5, maxMs: 1 },
    maxOpenConnections: 10,
    connectionsOpened: 10,
    samplesTruncated: false,
  };
  return {
    multiple,
    load,
    goodputRatio: figures.ok / capacity,
    serverCpuShare: 1,
    server: {
      heapUsedStartBytes: 0,
      heapUsedEndBytes: figures.heapMiB * 2 ** 20,
      heapUsedMaxBytes: figures.heapMiB * 2 ** 20,
      rssMaxBytes: 0,
      samples: 20,
      eventLoopP99Ms: 10,
    },
  };
}

const results: OverloadResults = {
  mode: 'full',
  multiples: [0.5, 1, 1.5, 3],
  warmupSeconds: 2,
  secondsPerLevel: 4,
  maxConnections: 1024,
  deadlineMs: 2000,
  poolMax: 16,
  skipped: ['postgres create: no PostgreSQL'],
  cases: [
    {
      name: 'memory list',
      method: 'GET',
      path: '/v1/pets?limit=20',
      capacity: { rps: 1000, runs: [1000, 990], p99Ms: 3, connections: 20 },
      runs: [
        {
          loadShedding: false,
          levels: [
            level(0.5, { ok: 500, shed: 0, p99Ms: 2, heapMiB: 30 }),
            level(1, { ok: 1000, shed: 0, p99Ms: 5, heapMiB: 40 }),
            level(1.5, { ok: 1000, shed: 0, p99Ms: 500, lost: 400, heapMiB: 90 }),
            level(3, { ok: 950, shed: 0, p99Ms: 1900, lost: 2000, heapMiB: 100 }),
          ],
        },
        {
          loadShedding: {},
          levels: [
            level(0.5, { ok: 500, shed: 0, p99Ms: 2, heapMiB: 30 }),
            level(1, { ok: 1000, shed: 0, p99Ms: 5, heapMiB: 40 }),
            level(1.5, { ok: 980, shed: 520, p99Ms: 8, heapMiB: 42 }),
            level(3, { ok: 920, shed: 2075, p99Ms: 9, lost: 5, heapMiB: 45 }),
          ],
        },
      ],
    },
  ],
};

test('the targets are the goals of the runs with shedding on, read at 3x', () => {
  const targets = overloadTargets(results);
  expect(targets.map(({ name, pass }) => [name, pass])).toEqual([
    ['overload memory list, shedding on: goodput at 3x / capacity', true],
    ['overload memory list, shedding on: p99 of answers (2xx and 503) at 3x / at 0.5x', true],
    ['overload memory list, shedding on: (timed out + dropped + errors) / arrivals at 3x', true],
    ['overload memory list, shedding on: peak heap at 3x / at 0.5x', true],
    ['overload memory list, shedding on: generator kept up at 3x (handled / offered)', true],
  ]);
  expect(targets.map((target) => target.actual)).toEqual([0.92, 4.5, 5 / 3000, 45 / 30, 1]);
  expect(targets[0]?.target).toBe('>= 0.90');
  expect(targets[1]?.target).toBe('<= 5');
});

test('the markdown has a row per level and the reference run goals, not met', () => {
  const markdown = renderOverloadMarkdown(results);
  expect(markdown).toContain('### memory list: `GET /v1/pets?limit=20`');
  expect(markdown).toContain('| off | 3x (3,000) |');
  expect(markdown).toContain('| on (defaults) | 1.5x (1,500) |');
  expect(markdown).toMatch(/shedding off: p99 of answers .* \| not met \(reference\) \|/);
  expect(markdown).toMatch(/shedding on: goodput at 3x \/ capacity \| >= 0.90 \| 0.920 \| PASS \|/);
  expect(markdown).toContain('Skipped: postgres create: no PostgreSQL.');
});
