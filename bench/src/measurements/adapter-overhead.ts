import { type BenchChild, startChild } from '../child.js';
import { type BenchConfig, FRAMEWORKS } from '../config.js';
import { SERVER_CPU } from '../cpu.js';
import { withCpu } from '../cpu-usage.js';
import { AUTHORIZATION, CREATE_BODY, CREATE_PATH, LIST_PATH } from '../fixtures.js';
import { type LoadResult, type LoadSpec, load } from '../load.js';
import type { Progress } from '../progress.js';
import type { AdapterOverhead, Framework } from '../results.js';
import { compared, type MeasuredRun } from '../run-figures.js';
import type { ServerSpec } from '../servers/spec.js';
import { expectStatus, probe } from './http-probe.js';

export const SERVER_ENTRY = new URL('../servers/entry.ts', import.meta.url);

type Operation = 'list' | 'create';

export const startServer = (
  spec: ServerSpec,
  nodeFlags: readonly string[] = [],
): Promise<BenchChild> =>
  startChild(SERVER_ENTRY, [JSON.stringify(spec)], { cpu: SERVER_CPU, nodeFlags });

export const base = (child: BenchChild): string => `http://127.0.0.1:${child.port}`;

export interface RunBounds {
  readonly connections: number;
  readonly seconds: number;
  readonly maxRequests?: number | undefined;
}

export function requestSpec(child: BenchChild, operation: Operation, bounds: RunBounds): LoadSpec {
  const { connections, seconds, maxRequests } = bounds;
  return operation === 'list'
    ? {
        url: base(child) + LIST_PATH,
        method: 'GET',
        headers: { authorization: AUTHORIZATION },
        connections,
        seconds,
        maxRequests,
      }
    : {
        url: base(child) + CREATE_PATH,
        method: 'POST',
        headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
        body: CREATE_BODY,
        connections,
        seconds,
        maxRequests,
      };
}

/** Both sides must give the same answer, or the comparison means nothing. */
export async function checkSameWork(
  bare: BenchChild,
  ours: BenchChild,
  framework: string,
): Promise<void> {
  const list = await Promise.all(
    [bare, ours].map((child) =>
      probe(base(child) + LIST_PATH, { headers: { authorization: AUTHORIZATION } }),
    ),
  );
  const [bareList, oursList] = list as [
    Awaited<ReturnType<typeof probe>>,
    Awaited<ReturnType<typeof probe>>,
  ];
  expectStatus(`${framework} bare list`, bareList, 200);
  expectStatus(`${framework} ours list`, oursList, 200);
  if (
    bareList.body !== oursList.body ||
    bareList.headers.get('link') !== oursList.headers.get('link')
  ) {
    throw new Error(
      `${framework}: bare and ours list different pages:\n${bareList.body.slice(0, 200)}\n${oursList.body.slice(0, 200)}`,
    );
  }
  for (const [side, child] of [
    ['bare', bare],
    ['ours', ours],
  ] as const) {
    const created = await probe(base(child) + CREATE_PATH, {
      method: 'POST',
      headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
      body: CREATE_BODY,
    });
    expectStatus(`${framework} ${side} create`, created, 201);
    const { id, ...rest } = JSON.parse(created.body) as { id: number };
    if (
      JSON.stringify(rest) !== JSON.stringify({ ...JSON.parse(CREATE_BODY) }) ||
      !created.headers.get('location')?.endsWith(`/v1/pets/${id}`)
    ) {
      throw new Error(`${framework} ${side} create answered ${created.body}`);
    }
  }
}

/** One line of progress for a run. */
export function describe(result: LoadResult, cpuSeconds: number | undefined): string {
  const cpu =
    cpuSeconds === undefined
      ? ''
      : `, server CPU ${((cpuSeconds * 1e6) / result.requests).toFixed(0)} µs/request`;
  return `${Math.round(result.rps)} req/s, p99 ${result.p99Ms.toFixed(2)} ms${cpu}`;
}

/** A run with any failed request measures something else: stop the bench. */
export function checked(what: string, result: LoadResult): LoadResult {
  if (result.failures > 0 || result.requests === 0) {
    throw new Error(`${what}: ${result.failures} failed requests, ${result.requests} succeeded`);
  }
  return result;
}

/**
 * Bare route against our adapter, per framework and operation. Runs alternate
 * which side goes first (A B, B A, ...) so a drift of the machine over time
 * (thermal, noisy neighbours) falls on both sides alike; medians are reported.
 */
export async function measureAdapterOverhead(
  config: BenchConfig,
  progress: Progress,
  frameworks: readonly Framework[] = FRAMEWORKS,
): Promise<AdapterOverhead[]> {
  const {
    connections,
    warmupSeconds,
    secondsPerRun,
    rounds,
    maxRequestsPerRun: maxRequests,
  } = config.http;
  const results: AdapterOverhead[] = [];
  for (const framework of frameworks) {
    progress.log(
      `adapter overhead: starting ${framework} servers (bare and ours) on the server core`,
    );
    const [bare, ours] = await Promise.all([
      startServer({ kind: `${framework}-bare` }),
      startServer({ kind: `${framework}-ours` }),
    ]);
    try {
      await checkSameWork(bare, ours, framework);
      for (const operation of ['list', 'create'] as const) {
        const sides = { bare, ours };
        for (const side of ['bare', 'ours'] as const) {
          progress.log(
            `adapter overhead: ${framework} ${operation} warm-up ${side} (${warmupSeconds}s)`,
          );
          checked(
            `warm-up ${side}`,
            await load(
              requestSpec(sides[side], operation, {
                connections,
                seconds: warmupSeconds,
                maxRequests,
              }),
            ),
          );
          progress.done(warmupSeconds);
        }
        const runs: Record<'bare' | 'ours', MeasuredRun[]> = { bare: [], ours: [] };
        for (let round = 1; round <= rounds; round++) {
          const order = round % 2 === 1 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const);
          for (const side of order) {
            const what = `${framework} ${operation} ${side} round ${round}/${rounds}`;
            const child = sides[side];
            const bounds = { connections, seconds: secondsPerRun, maxRequests };
            const run = await withCpu(child.pid, () => load(requestSpec(child, operation, bounds)));
            const result = checked(what, run.result);
            runs[side].push({ load: result, cpu: run.cpu });
            progress.done(secondsPerRun);
            progress.log(`adapter overhead: ${what}: ${describe(result, run.cpu.process)}`);
          }
        }
        results.push({
          framework,
          operation,
          connections,
          secondsPerRun,
          ...compared(runs.bare, runs.ours),
        });
      }
    } finally {
      await Promise.all([bare.stop(), ours.stop()]);
    }
  }
  return results;
}
