/**
 * RESULTS.md's pictures, drawn from the same results the tables come from: Vega-Lite compiled to
 * Vega and rendered to SVG headless (no browser, no canvas), one file per chart in `charts/`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { OverloadResults } from './measurements/overload.js';
import type {
  AdapterOverhead,
  PageCostRow,
  PostgresRow,
  RunFigures,
  SqliteRow,
  WriteCeiling,
} from './results.js';

export interface Chart {
  /** File name in `charts/`. */
  readonly file: string;
  readonly title: string;
  readonly spec: TopLevelSpec;
}

type Values = Record<string, string | number>[];

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const base = (title: string, subtitle: string) => ({
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  title: { text: title, subtitle, anchor: 'start' as const, subtitleFontSize: 10 },
  background: 'white',
});

/** One point per run of each side: req/s, and the median as a tick; a row per comparison. */
function runValues(row: string, side: string, figures: RunFigures): Values {
  return figures.rps.map((rps, round) => ({
    row,
    side,
    round: round + 1,
    rps,
    p50: figures.p50Ms[round] ?? Number.NaN,
    p99: figures.p99Ms[round] ?? Number.NaN,
  }));
}

/** Throughput of each side with its spread over rounds (every run a dot, the median a bar). */
function throughputChart(file: string, title: string, values: Values): Chart {
  return {
    file,
    title,
    spec: {
      ...base(title, 'req/s of every round (dots) and their median (bar); higher is better'),
      data: { values },
      facet: {
        row: {
          field: 'row',
          type: 'nominal',
          title: null,
          header: { labelAngle: 0, labelAlign: 'left' },
        },
      },
      spec: {
        width: 520,
        height: 40,
        layer: [
          {
            mark: { type: 'bar', opacity: 0.35, height: 14 },
            encoding: {
              y: { field: 'side', type: 'nominal', title: null },
              x: { aggregate: 'median', field: 'rps', type: 'quantitative', title: 'req/s' },
              color: { field: 'side', type: 'nominal', legend: null },
            },
          },
          {
            mark: { type: 'point', filled: true, size: 30 },
            encoding: {
              y: { field: 'side', type: 'nominal' },
              x: { field: 'rps', type: 'quantitative' },
              color: { field: 'side', type: 'nominal', legend: null },
            },
          },
        ],
      },
      resolve: { scale: { x: 'independent' } },
    } as TopLevelSpec,
  };
}

/** Median p50 and p99 of each side, per comparison. */
function latencyChart(file: string, title: string, values: Values): Chart {
  return {
    file,
    title,
    spec: {
      ...base(title, 'median over rounds of each run’s p50 and p99, ms; lower is better'),
      data: { values },
      transform: [{ fold: ['p50', 'p99'], as: ['percentile', 'ms'] }],
      facet: {
        row: {
          field: 'row',
          type: 'nominal',
          title: null,
          header: { labelAngle: 0, labelAlign: 'left' },
        },
      },
      spec: {
        width: 520,
        height: 60,
        mark: { type: 'bar' },
        encoding: {
          y: { field: 'side', type: 'nominal', title: null },
          yOffset: { field: 'percentile', type: 'nominal' },
          x: { aggregate: 'median', field: 'ms', type: 'quantitative', title: 'ms' },
          color: { field: 'percentile', type: 'nominal', title: null, legend: { orient: 'top' } },
        },
      },
      resolve: { scale: { x: 'independent' } },
    } as TopLevelSpec,
  };
}

/** Section 1: every framework's row, hand-written side and ours. */
export function adapterCharts(rows: readonly AdapterOverhead[]): Chart[] {
  const values = rows.flatMap((row) => [
    ...runValues(`${row.framework} ${row.operation}`, 'hand-written', row.bare),
    ...runValues(`${row.framework} ${row.operation}`, 'ours', row.ours),
  ]);
  return [
    throughputChart('memory-throughput.svg', 'Memory storage: throughput per server', values),
    latencyChart('memory-latency.svg', 'Memory storage: p50 and p99 per server', values),
  ];
}

/** Section 4 (and 7): the database rows, hand-written side and ours. */
export function databaseCharts(
  name: 'postgres' | 'sqlite',
  rows: readonly (PostgresRow | SqliteRow)[],
): Chart[] {
  const label = (row: PostgresRow | SqliteRow) =>
    'path' in row ? `${row.path} ${row.workload}` : row.workload;
  const values = rows.flatMap((row) => [
    ...runValues(label(row), name === 'postgres' ? 'pg peer' : 'bare route', row.bare),
    ...runValues(label(row), 'ours', row.ours),
  ]);
  const what = name === 'postgres' ? 'PostgreSQL' : 'SQLite';
  return [
    throughputChart(`${name}-throughput.svg`, `${what}: throughput per server`, values),
    latencyChart(`${name}-latency.svg`, `${what}: p50 and p99 per server`, values),
  ];
}

/** Section 4's write ceiling: keyed creates/s of each side with PostgreSQL under its quota. */
export function writeCeilingChart(ceiling: WriteCeiling): Chart {
  const row = `keyed create, PostgreSQL at ${ceiling.cpus} CPU`;
  return throughputChart(
    'write-ceiling.svg',
    `PostgreSQL under a CPU quota (${ceiling.cpus} CPU): keyed creates/s`,
    [...runValues(row, 'pg peer', ceiling.bare), ...runValues(row, 'ours', ceiling.ours)],
  );
}

/** Section 3: a page's time against the store's size, both axes on a log scale. */
export function pageCostChart(rows: readonly PageCostRow[]): Chart {
  const values = rows.flatMap((row) =>
    Object.entries(row.handleMs).map(([size, ms]) => ({
      storage: row.storage,
      page: row.variant,
      pets: Number(size),
      ms,
    })),
  );
  return {
    file: 'page-cost.svg',
    title: 'Page cost against store size',
    spec: {
      ...base(
        'Page cost against store size',
        'median time of one page of 20 through handle(), per storage and page; flat is the goal',
      ),
      data: { values },
      facet: { column: { field: 'storage', type: 'nominal', title: null } },
      spec: {
        width: 260,
        height: 200,
        mark: { type: 'line', point: true },
        encoding: {
          x: {
            field: 'pets',
            type: 'quantitative',
            scale: { type: 'log' },
            title: 'pets in the store',
          },
          y: { field: 'ms', type: 'quantitative', scale: { type: 'log' }, title: 'ms per page' },
          color: {
            field: 'page',
            type: 'nominal',
            title: null,
            legend: { orient: 'bottom', labelLimit: 300 },
          },
        },
      },
      resolve: { scale: { y: 'independent' } },
    } as TopLevelSpec,
  };
}

/**
 * Section 8: goodput (over the capacity) and the p99 of the 2xx answers against the offered load,
 * per case, the service's defaults and tuned (medians over the runs).
 */
export function overloadCharts(results: OverloadResults): Chart[] {
  const values = results.cases.flatMap((item) =>
    item.modes.flatMap((run) =>
      run.levels.map((level) => ({
        case: item.name,
        mode: run.mode,
        offered: level.multiple,
        goodput: level.goodputRatio,
        p99: level.p99Ms2xx,
      })),
    ),
  );
  const panel = (field: 'goodput' | 'p99', title: string, log: boolean) => ({
    width: 300,
    height: 180,
    mark: { type: 'line' as const, point: true },
    encoding: {
      x: { field: 'offered', type: 'quantitative' as const, title: 'offered load (x capacity)' },
      y: {
        field,
        type: 'quantitative' as const,
        title,
        ...(log ? { scale: { type: 'log' as const } } : {}),
      },
      color: {
        field: 'mode',
        type: 'nominal' as const,
        title: null,
        legend: { orient: 'top' as const },
      },
    },
  });
  const title = 'Past capacity: goodput and p99 against offered load';
  return [
    {
      file: 'overload.svg',
      title,
      spec: {
        ...base(
          title,
          'open loop, servers under CPU quotas; goodput = 2xx per second over the capacity C; medians over the runs',
        ),
        data: { values },
        vconcat: [
          {
            facet: { column: { field: 'case', type: 'nominal', title: null } },
            spec: panel('goodput', 'goodput / capacity', false),
          },
          {
            facet: { column: { field: 'case', type: 'nominal', title: null } },
            spec: panel('p99', 'p99 of 2xx, ms (log)', true),
            resolve: { scale: { y: 'independent' } },
          },
        ],
      } as TopLevelSpec,
    },
  ];
}

/** Writes each chart's SVG to `dir/charts/`; returns the Markdown image lines, by file. */
export async function writeCharts(
  dir: string,
  charts: readonly Chart[],
): Promise<Map<string, string>> {
  const folder = join(dir, 'charts');
  await mkdir(folder, { recursive: true });
  const lines = new Map<string, string>();
  for (const chart of charts) {
    await writeFile(join(folder, chart.file), await renderSvg(chart.spec));
    lines.set(chart.file, `![${chart.title}](charts/${chart.file})`);
  }
  return lines;
}
