import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { FaultRecord } from './nemesis.js';

// Vega-Lite charts of a run, rendered headless to SVG: the timeline (throughput, latency,
// trouble; each fault a shaded span from its start to its heal, numbered as in the report, and
// a green rule where the system had recovered) and the processes' memory over the run.

type Point = { t: number; metric: string; value: number; panel: string };

async function render(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

const PANELS = [
  { panel: 'throughput', title: 'per second', scale: 'linear' },
  { panel: 'latency', title: 'ms (log)', scale: 'log' },
  { panel: 'trouble', title: 'per second', scale: 'linear' },
] as const;

export function timelineSvg(
  title: string,
  series: readonly Point[],
  faults: readonly FaultRecord[],
): Promise<string> {
  const spans = faults.map((fault, n) => ({
    from: fault.at,
    to: fault.healedAt ?? fault.at,
    label: String(n + 1),
  }));
  const recoveries = faults.flatMap((fault) =>
    fault.recoveredAt === undefined ? [] : [{ t: fault.recoveredAt }],
  );
  const faultLayers = [
    {
      data: { values: spans },
      mark: { type: 'rect' as const, color: '#c0392b', opacity: 0.12 },
      encoding: {
        x: { field: 'from', type: 'quantitative' as const },
        x2: { field: 'to' },
      },
    },
    {
      data: { values: spans },
      mark: {
        type: 'text' as const,
        align: 'left' as const,
        baseline: 'top' as const,
        dx: 2,
        dy: 2,
        color: '#c0392b',
        fontSize: 10,
      },
      encoding: {
        x: { field: 'from', type: 'quantitative' as const },
        y: { value: 0 },
        text: { field: 'label', type: 'nominal' as const },
      },
    },
    {
      data: { values: recoveries },
      mark: { type: 'rule' as const, color: '#1e8449', strokeDash: [4, 3] },
      encoding: { x: { field: 't', type: 'quantitative' as const } },
    },
  ];
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: [
        'shaded: a fault, from its start to its heal (numbered as in the report); green: recovered',
      ],
      subtitleFontSize: 10,
      anchor: 'start',
    },
    background: 'white',
    vconcat: PANELS.map(({ panel, title: yTitle, scale }) => ({
      width: 900,
      height: 180,
      layer: [
        {
          data: { values: series.filter((point) => point.panel === panel) },
          mark: { type: 'line' as const, interpolate: 'step-after' as const, strokeWidth: 1.2 },
          encoding: {
            x: { field: 't', type: 'quantitative' as const, title: 'seconds since the start' },
            y: {
              field: 'value',
              type: 'quantitative' as const,
              title: yTitle,
              scale: { type: scale },
            },
            color: {
              field: 'metric',
              type: 'nominal' as const,
              title: null,
              legend: { orient: 'top' as const, labelLimit: 300 },
            },
          },
        },
        ...faultLayers,
      ],
    })),
    resolve: { scale: { color: 'independent' } },
  };
  return render(spec);
}

export function rssSvg(
  title: string,
  samples: readonly { t: number; process: string; mb: number }[],
): Promise<string> {
  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, anchor: 'start' },
    background: 'white',
    width: 900,
    height: 300,
    data: { values: [...samples] },
    mark: { type: 'line', strokeWidth: 1.2 },
    encoding: {
      x: { field: 't', type: 'quantitative', title: 'seconds since the start' },
      y: { field: 'mb', type: 'quantitative', title: 'resident memory (MB)' },
      color: { field: 'process', type: 'nominal', title: null, legend: { orient: 'top' } },
    },
  });
}
