import { expect, test } from 'vitest';
import {
  type OverloadLevel,
  type OverloadModeRun,
  type OverloadResults,
  summarize,
} from '../src/measurements/overload.js';
import { goodputAtThreeTimes } from '../src/measurements/refusal-cost.js';
import type { LatencySummary, OpenLoopResult } from '../src/open-loop.js';
import { renderOverloadMarkdown } from '../src/overload-report.js';
import { overloadTargets } from '../src/targets.js';

const latency = (p99Ms: number, count = 100): LatencySummary => ({
  count,
  p50Ms: p99Ms / 2,
  p99Ms,
  maxMs: p99Ms,
});

interface Figures {
  readonly ok: number;
  readonly shed: number;
  readonly p99Ms: number;
  readonly lost?: number;
  readonly bad?: number;
  readonly oldMiB: number;
  readonly lagMs?: number;
}

function level(multiple: number, figures: Figures): OverloadLevel {
  const capacity = 1000;
  const scheduled = multiple * capacity;
  const lost = figures.lost ?? 0;
  const load: OpenLoopResult = {
    offeredRps: scheduled,
    sentRps: scheduled,
    goodputRps: figures.ok,
    seconds: 1,
    sendWindowSeconds: 1,
    elapsedSeconds: 1.01,
    scheduled,
    sent: scheduled,
    dropped: 0,
    unsent: 0,
    timedOut: lost,
    errors: 0,
    status: { '2xx': figures.ok, '503': figures.shed, other: 0 },
    latency2xx: latency(figures.p99Ms),
    latency503: latency(1),
    latencyAnswered: latency(figures.p99Ms),
    sendLag: { p50Ms: 0.1, p99Ms: figures.lagMs ?? 0.5, maxMs: 1 },
    maxOpenConnections: 10,
    connectionsOpened: 10,
    samplesTruncated: false,
    badRefusals: figures.bad ?? 0,
    generatorLoopDelay: { p99Ms: 1.2, maxMs: 3 },
  };
  return {
    multiple,
    load,
    goodputRatio: figures.ok / capacity,
    cpu: { instances: 0.2, balancer: 0.05, postgres: null },
    server: {
      heapUsedStartBytes: 0,
      heapUsedEndBytes: 40 * 2 ** 20,
      heapUsedMaxBytes: 40 * 2 ** 20,
      liveHeapBytes: null,
      rssMaxBytes: 0,
      samples: 20,
      eventLoopP99Ms: 10,
    },
    liveHeapBytes: figures.oldMiB * 2 ** 20,
  };
}

const mode = (
  name: OverloadModeRun['mode'],
  levels: OverloadLevel[],
  settings: Record<string, string> = {},
): OverloadModeRun => ({
  mode: name,
  settings,
  runs: [levels],
  levels: levels.map((one) => summarize([one])),
});

const results: OverloadResults = {
  mode: 'full',
  multiples: [0.5, 1, 1.5, 3],
  runs: 1,
  warmupSeconds: 2,
  secondsPerLevel: 4,
  maxConnections: 4096,
  deadlineMs: 2000,
  clientAddresses: 64,
  skipped: ['postgres keyed create: no PostgreSQL'],
  notes: [],
  cases: [
    {
      name: 'fleet memory list',
      method: 'GET',
      path: '/v1/pets?limit=20',
      quotas: { instance: 0.1 },
      capacity: { rps: 1000, runs: [1000, 990], p50Ms: 1, p99Ms: 3, connections: 40 },
      modes: [
        mode('defaults', [
          level(0.5, { ok: 500, shed: 0, p99Ms: 2, oldMiB: 20 }),
          level(1, { ok: 1000, shed: 0, p99Ms: 5, oldMiB: 21 }),
          level(1.5, { ok: 990, shed: 510, p99Ms: 480, oldMiB: 22 }),
          level(3, { ok: 950, shed: 2050, p99Ms: 620, oldMiB: 24 }),
        ]),
        mode(
          'tuned',
          [
            level(0.5, { ok: 500, shed: 0, p99Ms: 2, oldMiB: 20 }),
            level(1, { ok: 1000, shed: 0, p99Ms: 5, oldMiB: 20 }),
            level(1.5, { ok: 990, shed: 510, p99Ms: 480, oldMiB: 21 }),
            level(3, {
              ok: 800,
              shed: 2000,
              p99Ms: 1200,
              lost: 200,
              bad: 3,
              oldMiB: 40,
              lagMs: 40,
            }),
          ],
          { PETSTORE_SERVER_MAXCONN: '3' },
        ),
      ],
    },
    {
      name: 'alone memory list',
      method: 'GET',
      path: '/v1/pets?limit=20',
      quotas: { instance: 0.15 },
      capacity: { rps: 1000, runs: [1000], p50Ms: 1, p99Ms: 3, connections: 20 },
      modes: [
        mode('defaults', [
          level(0.5, { ok: 500, shed: 0, p99Ms: 2, oldMiB: 20 }),
          level(3, { ok: 300, shed: 1500, p99Ms: 1900, lost: 1200, oldMiB: 25 }),
        ]),
      ],
      refusalCost: {
        instanceCpus: 0.15,
        rows: [
          { key: 'request', what: 'a request', answers: 1, perSecond: 1, cpuMicros: 100, ratio: 1 },
          {
            key: 'shed',
            what: 'a shed refusal',
            answers: 1,
            perSecond: 1,
            cpuMicros: 60,
            ratio: 0.6,
          },
        ],
      },
    },
  ],
};

test("the targets are the defaults' goals at 3x: where refusing is cheap all of them, alone heap and generator", () => {
  const targets = overloadTargets(results);
  expect(targets.map(({ name, pass }) => [name, pass])).toEqual([
    ['overload fleet memory list, defaults: goodput at 3x / capacity', true],
    ['overload fleet memory list, defaults: p99 of 2xx at 3x (ms)', true],
    [
      'overload fleet memory list, defaults: answers at 3x other than 2xx or the JSON 503 with Retry-After',
      true,
    ],
    ['overload fleet memory list, defaults: requests at 3x unanswered or reset', true],
    ['overload fleet memory list, defaults: live heap under load at 3x / at 0.5x', true],
    [
      'overload fleet memory list, defaults: levels where the generator fell behind (sent or read late)',
      true,
    ],
    ['overload alone memory list, defaults: live heap under load at 3x / at 0.5x', true],
    [
      'overload alone memory list, defaults: levels where the generator fell behind (sent or read late)',
      true,
    ],
  ]);
  expect(targets.map((target) => target.actual)).toEqual([0.95, 620, 0, 0, 24 / 20, 0, 25 / 20, 0]);
  expect(targets[0]?.target).toBe('>= 0.90');
  expect(targets[1]?.target).toBe('<= 1000');
});

test('the markdown: a row per mode and level, the tuned goals as a reference, the refusal cost and its note', () => {
  const markdown = renderOverloadMarkdown(results);
  expect(markdown).toContain('### fleet memory list: `GET /v1/pets?limit=20`');
  expect(markdown).toContain('Quotas: 0.1 CPU per instance.');
  expect(markdown).toContain('tuned: `PETSTORE_SERVER_MAXCONN=3`');
  expect(markdown).toContain('| defaults | 3x (3,000) | 0.95 |');
  // The tuned run's generator fell behind at 3x (send lag p99 40 ms): marked, not hidden.
  expect(markdown).toMatch(
    /\| tuned \| 3x \(3,000\) \| 0\.80 \|.*\*\*behind\*\*: sent 100%, lag p99 40\.0 ms/,
  );
  expect(markdown).toMatch(
    /tuned: goodput at 3x \/ capacity \| >= 0.90 \| 0.800 \| not met \(reference\) \|/,
  );
  expect(markdown).toMatch(/defaults: goodput at 3x \/ capacity \| >= 0.90 \| 0.950 \| PASS \|/);
  expect(markdown).toContain('| a shed refusal | 1 | 60.0 | 0.600 | 0.00 |');
  expect(markdown).toContain(
    '(60.0 µs, 60% of a 100.0 µs request), can keep at most 0% of its capacity',
  );
  expect(markdown).toContain('Skipped: postgres keyed create: no PostgreSQL.');
});

test('what a refusal allows at 3x: 90% needs one under 5% of a request', () => {
  expect(goodputAtThreeTimes(0)).toBe(1);
  expect(goodputAtThreeTimes(0.047)).toBeGreaterThan(0.9);
  expect(goodputAtThreeTimes(0.05)).toBeLessThan(0.9);
  expect(goodputAtThreeTimes(0.5)).toBe(0);
});
