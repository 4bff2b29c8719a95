/**
 * The past-capacity measurement (measurements/overload.ts) in RESULTS.md: how it was measured,
 * per case a table of every offered load (medians over the runs), its goals, and for the
 * instance alone the cost of a refusal beside the cost of a request.
 */

import { fmt, table, verdict } from './markdown.js';
import {
  GENERATOR_LIMITS,
  type OverloadCase,
  type OverloadLevelSummary,
  type OverloadModeRun,
  type OverloadResults,
} from './measurements/overload.js';
import { goodputAtThreeTimes, type RefusalCost } from './measurements/refusal-cost.js';
import { OVERLOAD_LIMITS, overloadGoals } from './targets.js';

const ms = (value: number): string =>
  Number.isFinite(value) ? fmt(value, value < 10 ? 2 : 1) : '-';
const mib = (bytes: number): string => (Number.isFinite(bytes) ? fmt(bytes / 2 ** 20, 1) : 'n/a');

const settingsOf = (run: OverloadModeRun): string =>
  Object.keys(run.settings).length === 0
    ? 'the defaults'
    : Object.entries(run.settings)
        .map(([name, value]) => `\`${name}=${value}\``)
        .join(', ');

function generatorCell({ generator }: OverloadLevelSummary): string {
  if (generator.keptUp) return 'kept up';
  return (
    `**behind**: sent ${fmt(generator.handledShare * 100, 0)}%, lag p99 ${ms(generator.sendLagP99Ms)} ms, ` +
    `loop p99 ${ms(generator.loopDelayP99Ms)} ms${generator.unsent > 0 ? `, ${fmt(generator.unsent)} unsent` : ''}`
  );
}

function levelRow(run: OverloadModeRun, level: OverloadLevelSummary): string[] {
  return [
    run.mode,
    `${level.multiple}x (${fmt(level.offeredRps)})`,
    fmt(level.goodputRatio, 2),
    ms(level.p50Ms2xx),
    ms(level.p99Ms2xx),
    ms(level.p99MsAnswered),
    fmt(level.refused),
    fmt(level.badAnswers),
    fmt(level.unanswered),
    `${mib(level.heapPeakBytes)} (${mib(level.liveHeapBytes)})`,
    Number.isFinite(level.instancesCpu) ? fmt(level.instancesCpu, 2) : 'n/a',
    generatorCell(level),
  ];
}

function refusalSection(cost: RefusalCost): string[] {
  const shed = cost.rows.find((row) => row.key === 'shed');
  const request = cost.rows.find((row) => row.key === 'request');
  const out = [
    '',
    `The cost of a refusal beside the cost of a request: server CPU per answer, closed loop, each on a fresh instance` +
      `${cost.instanceCpus === undefined ? '' : ` under the same quota (${cost.instanceCpus} CPU)`}. ` +
      'An instance whose CPU is the limit serves, of an offered 3x C, g / C = (1 - 3r) / (1 - r), ' +
      'r a refusal’s CPU over a request’s: 90% of C needs r under 0.048.',
    '',
    table(
      [
        'Answer',
        'Per second',
        'Server CPU µs each',
        'r (over a request)',
        'Goodput at 3x it allows',
      ],
      cost.rows.map((row) => [
        row.what,
        fmt(row.perSecond),
        ms(row.cpuMicros),
        row.key === 'request' ? '1' : fmt(row.ratio, 3),
        row.key === 'request' ? '' : fmt(goodputAtThreeTimes(row.ratio), 2),
      ]),
    ),
  ];
  if (shed !== undefined && request !== undefined && Number.isFinite(shed.ratio)) {
    out.push(
      '',
      `So an instance alone, refusing after node:http has parsed each request (${ms(shed.cpuMicros)} µs, ` +
        `${fmt(shed.ratio * 100, 0)}% of a ${ms(request.cpuMicros)} µs request), can keep at most ` +
        `${fmt(goodputAtThreeTimes(shed.ratio) * 100, 0)}% of its capacity at 3x: refusing where it is cheap ` +
        'is the balancer’s job (the fleet case), or the pool’s, where the work is elsewhere (PostgreSQL).',
    );
  }
  return out;
}

function caseSection(item: OverloadCase, enforced: boolean): string[] {
  const { capacity, quotas } = item;
  const quota =
    quotas.instance === undefined
      ? 'no quota'
      : `${quotas.instance} CPU per instance${quotas.postgres === undefined ? '' : `, ${quotas.postgres} CPU for PostgreSQL`}`;
  const out: string[] = [
    `### ${item.name}: \`${item.method} ${item.path}\``,
    '',
    `Quotas: ${quota}. Capacity (1x): ${fmt(capacity.rps)} 2xx/s, the best closed-loop run ` +
      `(autocannon, ${capacity.connections} connections, p50 ${ms(capacity.p50Ms)} ms, p99 ${ms(capacity.p99Ms)} ms; ` +
      `runs ${capacity.runs.map((rps) => fmt(rps)).join(', ')}). ` +
      item.modes.map((run) => `${run.mode}: ${settingsOf(run)}`).join('; ') +
      '.',
    '',
    table(
      [
        'Mode',
        'Offered (x C, req/s)',
        'Goodput / C',
        '2xx p50 ms',
        '2xx p99 ms',
        'Answered p99 ms',
        '503',
        'Bad answers',
        'Unanswered',
        'Heap MiB: peak (live)',
        "Instances' CPU",
        'Generator',
      ],
      item.modes.flatMap((run) => run.levels.map((level) => levelRow(run, level))),
    ),
    '',
  ];
  const goals = item.modes.flatMap((run) =>
    overloadGoals(item, run).map((goal) => ({ run, goal })),
  );
  out.push(
    table(
      ['Goal', 'Required', 'Measured', 'Result'],
      goals.map(({ run, goal }) => [
        goal.name,
        goal.target,
        fmt(goal.actual, 3),
        run.mode === 'defaults'
          ? verdict(goal, enforced)
          : `${goal.pass ? 'met' : 'not met'} (reference)`,
      ]),
    ),
  );
  if (item.refusalCost !== undefined) out.push(...refusalSection(item.refusalCost));
  out.push('');
  return out;
}

/** The section: how it was measured, then each case. */
export function renderOverloadMarkdown(results: OverloadResults): string {
  const enforced = results.mode === 'full';
  const out: string[] = [
    '## 8. Past capacity, under CPU quotas: a fleet, an instance on PostgreSQL, an instance alone',
    '',
    'The service as users run it (`petstore-service`), each server under test in a cgroup of its own ' +
      'with a CPU quota (the instances; PostgreSQL’s postmaster, and so every backend it forks), on ' +
      'the server core; HAProxy on that core without a quota; the load generator alone on the other ' +
      'core, so it never limits. ' +
      ((results.instanceWarmupSeconds ?? 0) > 0
        ? `Each instance, as it starts, first gets ${results.instanceWarmupSeconds} s of its case’s ` +
          'requests in a closed loop at full speed, sent where the load goes (through HAProxy for the ' +
          'fleet), then enters its quota: V8’s optimising compiler runs inside the quota, and at 0.1 ' +
          'CPU an instance took tens of seconds of load to warm. '
        : '') +
      'Each case’s capacity C is the most 2xx per second a closed loop ' +
      `(autocannon) gets under the quotas. Then an open-loop generator offers ${results.multiples.map((m) => `${m}x`).join(', ')} C: ` +
      'arrivals at a fixed rate whatever the servers do, each on an idle keep-alive connection or a ' +
      `new one (up to ${fmt(results.maxConnections)}, from ${results.clientAddresses} loopback addresses: ` +
      'many clients, as the caps per address see them), latency from each arrival’s scheduled time, ' +
      `a request unanswered ${fmt(results.deadlineMs)} ms after it was due timed out. Each level runs ` +
      `${results.secondsPerLevel} s after a ${results.warmupSeconds} s warm-up at 0.5x, levels in rising ` +
      `order on one deployment, ${results.runs} run(s) per mode, each on a fresh deployment (the ` +
      'defaults’ first on the capacity’s, whose closed loop leaves no queue); the tables ' +
      'show medians over the runs. "Defaults" is the service and the deploy as shipped; "tuned" what ' +
      'docs/operations.md has an operator adjust. Bad answers: 503s without the JSON content type and ' +
      'Retry-After, and any other status; unanswered: timed out, reset or cut mid-request, or dropped ' +
      'at the generator’s cap. Heap: the largest heapUsed of any instance, sampled every 50 ms, and in ' +
      'parentheses its live heap, which the heap target reads (heapUsed swings with the garbage of the ' +
      'allocation rate): heapUsed after a full collection, the load still on (what it holds, a queue ' +
      'included), taken once the run’s levels are measured, in a phase of its own per level at that ' +
      'level’s rate, in rising order. Not during a level: a full collection throws away the ' +
      'optimised code whose embedded objects it clears, and at 0.1 CPU an instance then answered a ' +
      'third of its rate for seconds while V8 compiled it again. ' +
      'Instances’ CPU: their quota groups’ CPU seconds per second. The generator kept up when it sent ' +
      `at least ${GENERATOR_LIMITS.handledShare * 100}% of the offered rate with a send lag p99 at most ` +
      `${GENERATOR_LIMITS.sendLagP99Ms} ms and its own event loop (which reads the answers) late by at most ` +
      `${GENERATOR_LIMITS.loopDelayP99Ms} ms at p99; a level where it did not is marked "behind".`,
    '',
    `Targets (issue 40), on the defaults' medians: for the fleet and the instance on PostgreSQL at 3x, goodput ` +
      `at least ${OVERLOAD_LIMITS.goodput * 100}% of C, the p99 of 2xx at most ${OVERLOAD_LIMITS.p99Ms2xx} ms, ` +
      'every refusal the JSON 503 with Retry-After, no request unanswered or reset; in every case the ' +
      `live heap at 3x at most ${OVERLOAD_LIMITS.heapGrowth}x that at 0.5x, and ` +
      'the generator kept up at every level.',
    '',
  ];
  for (const item of results.cases) out.push(...caseSection(item, enforced));
  for (const note of results.notes) out.push(`Note: ${note}`, '');
  for (const skipped of results.skipped) out.push(`Skipped: ${skipped}.`, '');
  return out.join('\n');
}
