import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { Fault } from './load.js';

/**
 * The run's timeline as an SVG: the first metric (per second) in a panel of its own, the others
 * below it, and a dashed rule and a label at each fault in both. Vega-Lite compiled to Vega, rendered headless (no browser, no canvas).
 */
export async function timelineSvg(
  title: string,
  series: readonly { t: number; metric: string; value: number }[],
  faults: readonly Fault[],
): Promise<string> {
  // A few faults are named on the chart; more would overlap, so they are numbered as in the
  // report's table (and named in the subtitle while they fit).
  const named = faults.length <= 4;
  const marks = faults.map((fault, n) => ({
    t: fault.at,
    label: named ? `${n + 1}. ${fault.what}` : String(n + 1),
  }));
  const subtitle = named
    ? []
    : faults.length > 12
      ? ['faults numbered as in the report']
      : [
          faults
            .map((fault, n) => `${n + 1}. ${fault.what} (${fault.at.toFixed(0)} s)`)
            .join(' · '),
        ];
  const faultLayers = [
    {
      data: { values: marks },
      mark: { type: 'rule' as const, color: '#c0392b', strokeDash: [4, 3] },
      encoding: { x: { field: 't', type: 'quantitative' as const } },
    },
    {
      data: { values: marks },
      mark: {
        type: 'text' as const,
        align: 'left' as const,
        baseline: 'top' as const,
        dx: 3,
        dy: 3,
        color: '#c0392b',
        fontSize: 10,
      },
      encoding: {
        x: { field: 't', type: 'quantitative' as const },
        y: { value: 0 },
        text: { field: 'label', type: 'nominal' as const },
      },
    },
  ];
  const panel = (metrics: readonly string[], yTitle: string) => ({
    width: 900,
    height: 220,
    layer: [
      {
        data: { values: series.filter((point) => metrics.includes(point.metric)) },
        mark: { type: 'line' as const, interpolate: 'step-after' as const, strokeWidth: 1.5 },
        encoding: {
          x: { field: 't', type: 'quantitative' as const, title: 'seconds since the start' },
          y: { field: 'value', type: 'quantitative' as const, title: yTitle },
          color: {
            field: 'metric',
            type: 'nominal' as const,
            title: null,
            legend: { orient: 'top' as const, labelLimit: 400 },
          },
        },
      },
      ...faultLayers,
    ],
  });
  const metrics = [...new Set(series.map((point) => point.metric))];
  const [first, ...rest] = metrics;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle, subtitleFontSize: 10, anchor: 'start' },
    background: 'white',
    vconcat: [panel(first === undefined ? [] : [first], 'per second'), panel(rest, 'per second')],
    resolve: { scale: { color: 'independent' } },
  };
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
