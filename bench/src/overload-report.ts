/**
 * The past-capacity measurement (measurements/overload.ts) in RESULTS.md, and
 * its goals as target rows.
 */

import { fmt, table, verdict } from './markdown.js';
import type {
  OverloadCase,
  OverloadLevel,
  OverloadResults,
  OverloadRun,
} from './measurements/overload.js';
import { OVERLOAD_LIMITS, overloadGoals } from './targets.js';

const ms = (value: number): string =>
  Number.isFinite(value) ? fmt(value, value < 10 ? 2 : 1) : '-';
const mib = (bytes: number | undefined): string =>
  bytes === undefined ? 'n/a' : fmt(bytes / 2 ** 20, 1);

const sheddingLabel = (run: OverloadRun): string =>
  run.loadShedding === false
    ? 'off'
    : Object.keys(run.loadShedding).length === 0
      ? 'on (defaults)'
      : `on (${Object.entries(run.loadShedding)
          .map(([key, value]) => `${key} ${String(value)}`)
          .join(', ')})`;

function levelRow(run: OverloadRun, level: OverloadLevel): string[] {
  const { load } = level;
  return [
    sheddingLabel(run),
    `${level.multiple}x (${fmt(load.offeredRps)})`,
    fmt(load.sentRps),
    fmt(load.goodputRps),
    fmt(level.goodputRatio, 2),
    ms(load.latency2xx.p50Ms),
    ms(load.latency2xx.p99Ms),
    fmt(load.status['503']),
    ms(load.latency503.p99Ms),
    fmt(load.status.other),
    fmt(load.dropped),
    fmt(load.timedOut),
    fmt(load.errors),
    mib(level.server?.heapUsedMaxBytes),
    mib(level.server?.heapUsedEndBytes),
    level.serverCpuShare === null ? 'n/a' : fmt(level.serverCpuShare, 2),
    level.server?.eventLoopP99Ms == null ? 'n/a' : ms(level.server.eventLoopP99Ms),
  ];
}

function caseSection(item: OverloadCase, enforced: boolean): string[] {
  const { capacity } = item;
  const out: string[] = [];
  out.push(
    `### ${item.name}: \`${item.method} ${item.path}\``,
    '',
    `Capacity (1x): ${fmt(capacity.rps)} req/s, the best closed-loop run (autocannon, ` +
      `${capacity.connections} connections, p99 ${ms(capacity.p99Ms)} ms; runs ` +
      `${capacity.runs.map((rps) => fmt(rps)).join(', ')}).`,
    '',
  );
  out.push(
    table(
      [
        'Shedding',
        'Offered (x capacity, req/s)',
        'Sent/s',
        'Goodput (2xx/s)',
        'Goodput / capacity',
        '2xx p50 ms',
        '2xx p99 ms',
        '503',
        '503 p99 ms',
        'Other',
        'Dropped',
        'Timed out',
        'Errors',
        'Peak heap MiB',
        'Heap at end MiB',
        'Server CPU',
        'Loop delay p99 ms',
      ],
      item.runs.flatMap((run) => run.levels.map((level) => levelRow(run, level))),
    ),
    '',
  );
  const goals = item.runs.flatMap((run) => overloadGoals(item, run).map((goal) => ({ run, goal })));
  out.push(
    table(
      ['Goal', 'Required', 'Measured', 'Result'],
      goals.map(({ run, goal }) => [
        goal.name,
        goal.target,
        fmt(goal.actual, 3),
        run.loadShedding === false
          ? `${goal.pass ? 'met' : 'not met'} (reference)`
          : verdict(goal, enforced),
      ]),
    ),
    '',
  );
  return out;
}

/** The section: how it was measured, then a table and the goals per case. */
export function renderOverloadMarkdown(results: OverloadResults): string {
  const enforced = results.mode === 'full';
  const out: string[] = [];
  out.push(
    '## 8. Past capacity: open-loop load at 0.5x to 3x what one instance serves',
    '',
    `Each case's capacity is the most 2xx per second a closed loop (autocannon) gets; then an ` +
      `open-loop generator offers ${results.multiples.map((m) => `${m}x`).join(', ')} of it: ` +
      `requests arrive at a fixed rate whatever the server does, each on an idle keep-alive ` +
      `connection or a new one up to ${fmt(results.maxConnections)} open (an arrival finding ` +
      `them all busy is dropped, never queued), latency from the arrival's scheduled time, ` +
      `a request unanswered ${fmt(results.deadlineMs)} ms after it was due timed out. ` +
      `Every level runs ${results.secondsPerLevel} s on a fresh server child after a ` +
      `${results.warmupSeconds} s warm-up at 0.5x (so a queue left by one level cannot slow ` +
      `the next), with the core's load shedding off (\`loadShedding: false\`, the reference) ` +
      `and on. "Sent/s" is what the generator wrote per second: below the offered rate by what ` +
      `was dropped, or because the generator fell behind (the last goal checks it). Heap: the ` +
      `server's heapUsed sampled every 50 ms during the run; server CPU: its CPU seconds per ` +
      `second (1.00 is its whole core); loop delay: its event loop's p99 delay over the run.`,
    '',
    'Goals, at the highest load against the lowest: goodput at least ' +
      `${OVERLOAD_LIMITS.goodput * 100}% of the capacity; the p99 of every answer (2xx and 503) ` +
      `at most ${OVERLOAD_LIMITS.p99Growth}x its value at the lowest load; the excess answered ` +
      `503 rather than queued (timed out + dropped + errors at most ` +
      `${OVERLOAD_LIMITS.unanswered * 100}% of arrivals); the heap bounded (its peak at most ` +
      `${OVERLOAD_LIMITS.heapGrowth}x the peak at the lowest load, where nothing waits: a ` +
      'server that refuses the excess holds about what serving takes, one that queues it holds ' +
      "every waiting request besides, up to the generator's cap on requests in flight); and the " +
      'generator kept up (what it sent or dropped per second of its window at least ' +
      `${OVERLOAD_LIMITS.generator * 100}% of the offered rate), or the server was not offered ` +
      'that load. Only the runs with shedding on are targets.',
    '',
  );
  for (const item of results.cases) out.push(...caseSection(item, enforced));
  for (const skipped of results.skipped) out.push(`Skipped: ${skipped}.`, '');
  return out.join('\n');
}
