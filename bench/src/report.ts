import type {
  AdapterOverhead,
  AdapterResults,
  Results,
  RunFigures,
  SqliteResults,
} from './results.js';
import { median } from './stats.js';
import { roundRatios } from './targets.js';

const fmt = (value: number, digits = 0): string =>
  Number.isFinite(value)
    ? value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : 'n/a';
const ms = (value: number): string =>
  value < 0.1 ? `${fmt(value * 1000, 1)} µs` : `${fmt(value, 3)} ms`;
const runsOf = (figures: RunFigures): string =>
  figures.rps
    .map((rps, index) => `${fmt(rps)} (${fmt(figures.p99Ms[index] ?? Number.NaN, 1)})`)
    .join(', ');
const micros = (value: number | null): string => (value === null ? 'n/a' : fmt(value, 0));
const verdict = (pass: boolean, enforced: boolean): string =>
  enforced ? (pass ? 'PASS' : '**FAIL**') : pass ? 'pass*' : 'fail*';

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

type Cell = (name: string) => [string, string];

function cellsOf(results: Pick<Results, 'mode' | 'targets'>): Cell {
  const enforced = results.mode === 'full';
  return (name) => {
    const target = results.targets.find((t) => t.name === name);
    return target === undefined ? ['', ''] : [target.target, verdict(target.pass, enforced)];
  };
}

/** Title, smoke warning and the machine table. */
function head(results: Pick<Results, 'machine' | 'durationSeconds'>, enforced: boolean): string[] {
  const { machine } = results;
  const out: string[] = [];
  out.push('# Benchmark results', '');
  if (!enforced)
    out.push(
      '> Smoke run: tiny sizes and durations, figures mean nothing; targets marked * are not enforced.',
      '',
    );
  out.push(
    table(
      ['Machine', ''],
      [
        ['CPU', `${machine.cpu} (${machine.cores} cores)`],
        ['Memory', `${fmt(machine.memoryGiB, 1)} GiB`],
        ['Node', machine.node],
        ['Platform', machine.platform],
        ['Date', machine.date],
        ['Pinning', machine.pinning],
        ['Code', machine.code],
        [
          'Load average (1 min)',
          `${fmt(machine.loadAverage.start, 2)} at start, ${fmt(machine.loadAverage.end, 2)} at end`,
        ],
        ['Whole run', `${fmt(results.durationSeconds)} s`],
      ],
    ),
    '',
    'How each figure is measured, and how to read it: [README.md](README.md).',
    '',
  );

  return out;
}

/** Section 4: PostgreSQL through ours against the bare node:http route with the same statements. */
function postgresSection(results: Pick<Results, 'postgres'>, cell: Cell): string[] {
  const out = [
    '## 4. PostgreSQL: @petstore/node + storage-postgres vs a bare node:http route with pg',
    '',
  ];
  const pg = results.postgres;
  if (!('rows' in pg)) return [...out, `Skipped: ${pg.skipped}`, ''];
  out.push(
    `autocannon, ${pg.connections} connections, a pool of ${pg.poolMax} on both sides, ${pg.secondsPerRun} s per run, ` +
      `${pg.rounds} runs per side, interleaved; medians. A keyed create is ours with a new Idempotency-Key per ` +
      'request, against the bare plain create.',
    '',
  );
  if (pg.pgbouncerMissing !== undefined)
    out.push(`PgBouncer rows missing: ${pg.pgbouncerMissing}`, '');
  out.push(
    table(
      [
        'Path',
        'Workload',
        'Bare req/s',
        'Ours req/s',
        'Ours/bare',
        'Target',
        'Result',
        'Server CPU µs bare / ours',
        'CPU ours/bare',
        'Target',
        'Result',
        'p99 bare / ours',
        'p99 ours/bare',
        'Target',
        'Result',
      ],
      pg.rows.map((row) => {
        const label = `postgres ${row.path} ${row.workload}`;
        return [
          row.path,
          row.workload,
          fmt(row.bare.medianRps),
          fmt(row.ours.medianRps),
          fmt(row.throughputRatio, 3),
          ...cell(`${label}: throughput ours/bare`),
          `${micros(row.bare.medianServerCpuMicros)} / ${micros(row.ours.medianServerCpuMicros)}`,
          row.serverCpuRatio === null ? 'n/a' : fmt(row.serverCpuRatio, 3),
          ...cell(`${label}: server CPU ours/bare`),
          `${fmt(row.bare.medianP99Ms, 2)} / ${fmt(row.ours.medianP99Ms, 2)} ms`,
          fmt(row.p99Ratio, 3),
          ...cell(`${label}: p99 ours/bare`),
        ];
      }),
    ),
    '',
    'Every run, req/s (p99 ms): ' +
      pg.rows
        .map(
          (row) =>
            `${row.path} ${row.workload}: bare ${runsOf(row.bare)}; ours ${runsOf(row.ours)}`,
        )
        .join('. '),
    '',
  );
  return out;
}

/** Section 1: the adapter rows, their CPU per request and every run. */
function adapterSection(rows: readonly AdapterOverhead[], cell: Cell): string[] {
  const out: string[] = [];
  out.push('## 1. Adapter overhead: our adapter + core + memory storage vs a bare route', '');
  const adapter = rows[0];
  if (adapter !== undefined) {
    out.push(
      `autocannon on 127.0.0.1, ${adapter.connections} connections, ${adapter.secondsPerRun} s per run, ` +
        `${adapter.bare.rps.length} runs per side, interleaved; medians.`,
      '',
    );
  }
  out.push(
    table(
      [
        'Framework',
        'Operation',
        'Bare req/s',
        'Ours req/s',
        'Ours/bare',
        'Target',
        'Result',
        'Bare p99',
        'Ours p99',
        'p99 ours/bare',
        'Target',
        'Result',
      ],
      rows.map((row) => {
        const label = `${row.framework} ${row.operation}`;
        return [
          row.framework,
          row.operation,
          fmt(row.bare.medianRps),
          fmt(row.ours.medianRps),
          fmt(row.throughputRatio, 3),
          ...cell(`${label}: throughput ours/bare`),
          `${fmt(row.bare.medianP99Ms, 2)} ms`,
          `${fmt(row.ours.medianP99Ms, 2)} ms`,
          fmt(row.p99Ratio, 3),
          ...cell(`${label}: p99 ours/bare`),
        ];
      }),
    ),
    '',
    'Server CPU per request (CPU time of the server process / requests served; it does not depend on how fast ' +
      'the load generator was):',
    '',
    table(
      ['Framework', 'Operation', 'Bare µs/request', 'Ours µs/request', 'Ours/bare'],
      rows.map((row) => [
        row.framework,
        row.operation,
        micros(row.bare.medianServerCpuMicros),
        micros(row.ours.medianServerCpuMicros),
        row.serverCpuRatio === null ? 'n/a' : fmt(row.serverCpuRatio, 3),
      ]),
    ),
    '',
    'Every run, in run order (req/s; p99 ms):',
    '',
    table(
      ['Framework', 'Operation', 'Bare', 'Ours'],
      rows.map((row) => [row.framework, row.operation, runsOf(row.bare), runsOf(row.ours)]),
    ),
    '',
    ...steadyStateLines(rows),
  );

  return out;
}

/** Each round against the others, over all sides: round 1 is the check, the rest its control. */
function steadyStateLines(rows: readonly AdapterOverhead[]): string[] {
  const rounds = Math.max(0, ...rows.flatMap((row) => [row.bare.rps.length, row.ours.rps.length]));
  if (rounds < 2) return [];
  return [
    "Steady state: each round's req/s over the median of the same side's other rounds, over " +
      'all sides (median, and slowest side). Round 1 is the check (its target is on the median); ' +
      "the later rounds show the machine's noise for comparison.",
    '',
    table(
      ['Round', 'Median of sides', 'Slowest side'],
      Array.from({ length: rounds }, (_, round) => {
        const ratios = roundRatios(rows, round);
        return [String(round + 1), fmt(median(ratios), 3), fmt(Math.min(...ratios), 3)];
      }),
    ),
    '',
  ];
}

/** Targets earlier runs had, and why they went. */
const RETIRED = [
  '### Retired targets',
  '',
  '- **core create: `handle()` <= 1.5 x (JSON.parse + createPet + JSON.stringify)**. The core keeps ' +
    'only SHA-256 digests of API keys, so every request hashes its token once; the baseline hashed ' +
    'nothing, so the target charged the core for a rule of the contract. End to end, creates match the ' +
    'bare routes (section 1), which do hash. The list target stays.',
  '- **postgres create: service / direct pg loop >= 0.80**. The loop sent INSERTs with no HTTP at ' +
    'all, so the ratio measured what HTTP costs, not what the library does. Section 4 compares ours ' +
    'with a bare `node:http` route that validates and sends the same statements with the same pool, ' +
    'directly and through PgBouncer.',
  '',
  '### Restated targets',
  '',
  '- **docs asset br: server CPU per request <= 100 µs** is counted above the floor (the same brotli ' +
    'bytes from a route with no logic). Sending 0.8 MB over loopback costs the server 170-200 µs of ' +
    'kernel work whoever writes it, so the whole figure could never reach 100 µs; what the target was ' +
    'set against, re-encoding the 3.5 MB script on every request (7-12 ms), is what the package removed.',
  '',
];

function targetsSection(results: Pick<Results, 'targets' | 'notes'>, enforced: boolean): string[] {
  const out: string[] = [];
  out.push('## Targets', '');
  out.push(
    table(
      ['Target', 'Required', 'Measured', 'Result'],
      results.targets.map((target) => [
        target.name,
        target.target,
        fmt(target.actual, target.actual > 10 ? 1 : 3),
        verdict(target.pass, enforced),
      ]),
    ),
    '',
  );
  const failed = results.targets.filter((target) => !target.pass).length;
  out.push(`${results.targets.length - failed} of ${results.targets.length} targets hold.`, '');
  out.push(...RETIRED);
  if (results.notes.length > 0)
    out.push('## Notes', '', ...results.notes.map((note) => `- ${note}`), '');
  return out;
}

/** Section 3: one page's time by store size, through `handle()` and from the storage alone. */
function pageCostSection(results: Pick<Results, 'pageCost'>, cell: Cell): string[] {
  const out: string[] = [];
  out.push('## 3. Page cost against store size (limit 20)', '');
  const sizes = results.pageCost.sizes;
  const largest = sizes.at(-1) ?? 0;
  const smallest = sizes[0] ?? 0;
  for (const layer of ['handle', 'storage'] as const) {
    out.push(
      layer === 'handle'
        ? 'Median time of one page through `store.handle()` (auth, parsing, storage, JSON):'
        : 'Median time of the same page from the storage alone (`listPets`, limit + 1 rows):',
      '',
    );
    out.push(
      table(
        [
          'Storage',
          'Page',
          ...sizes.map((size) => fmt(size)),
          `${fmt(largest)} / ${fmt(smallest)}`,
          'Target',
          'Result',
        ],
        results.pageCost.rows.map((row) => {
          const times = layer === 'handle' ? row.handleMs : row.storageMs;
          const label = `${row.storage} ${row.variant}: page at ${largest.toLocaleString('en')} / at ${smallest.toLocaleString('en')} (${layer === 'handle' ? 'handle' : 'storage alone'})`;
          return [
            row.storage,
            row.variant,
            ...sizes.map((size) => ms(times[String(size)] ?? Number.NaN)),
            fmt(layer === 'handle' ? row.handleRatio : row.storageRatio, 2),
            ...cell(label),
          ];
        }),
      ),
      '',
    );
  }
  return out;
}

/** Section 7: SQLite through ours against the bare node:http route with node:sqlite. */
function sqliteSection(results: Pick<Results, 'sqlite'>, cell: Cell): string[] {
  const sq = results.sqlite;
  const delay = (value: number | null): string => (value === null ? 'n/a' : fmt(value, 2));
  return [
    '## 7. SQLite: @petstore/node + storage-sqlite vs a bare node:http route with node:sqlite',
    '',
    `autocannon, ${sq.connections} connections, ${sq.secondsPerRun} s per run, ${sq.rounds} runs per side, ` +
      `interleaved; medians. Each side on a fresh file of its own (${fmt(sq.seed)} pets seeded). A keyed create ` +
      'sends a new Idempotency-Key per request to both sides; both store the claim with the pet in one ' +
      '`BEGIN IMMEDIATE` transaction. Event-loop p99: `monitorEventLoopDelay` in each server process, over each run.',
    '',
    table(
      [
        'Workload',
        'Bare req/s',
        'Ours req/s',
        'Ours/bare',
        'Target',
        'Result',
        'p99 bare / ours',
        'p99 ours/bare',
        'Target',
        'Result',
        'Event-loop p99 bare / ours',
        'Server CPU µs bare / ours',
      ],
      sq.rows.map((row) => {
        const label = `sqlite ${row.workload}`;
        return [
          row.workload,
          fmt(row.bare.medianRps),
          fmt(row.ours.medianRps),
          fmt(row.throughputRatio, 3),
          ...cell(`${label}: throughput ours/bare`),
          `${fmt(row.bare.medianP99Ms, 2)} / ${fmt(row.ours.medianP99Ms, 2)} ms`,
          fmt(row.p99Ratio, 3),
          ...cell(`${label}: p99 ours/bare`),
          `${delay(row.eventLoopP99Ms.medianBare)} / ${delay(row.eventLoopP99Ms.medianOurs)} ms`,
          `${micros(row.bare.medianServerCpuMicros)} / ${micros(row.ours.medianServerCpuMicros)}`,
        ];
      }),
    ),
    '',
    'Every run, req/s (p99 ms) [event-loop p99 ms]: ' +
      sq.rows
        .map((row) => {
          const runs = (figures: RunFigures, delays: readonly (number | null)[]) =>
            figures.rps
              .map(
                (rps, index) =>
                  `${fmt(rps)} (${fmt(figures.p99Ms[index] ?? Number.NaN, 1)}) [${delay(delays[index] ?? null)}]`,
              )
              .join(', ');
          return `${row.workload}: bare ${runs(row.bare, row.eventLoopP99Ms.bare)}; ours ${runs(row.ours, row.eventLoopP99Ms.ours)}`;
        })
        .join('. '),
    '',
  ];
}

/** RESULTS.md: every figure of results.json, as tables with their targets. */
export function renderMarkdown(results: Results): string {
  const enforced = results.mode === 'full';
  const cell = cellsOf(results);
  const out = head(results, enforced);
  out.push(...adapterSection(results.adapterOverhead, cell));

  out.push('## 2. Core alone: `handle()` without HTTP', '');
  const serverMicros = (framework: string, operation: string): string => {
    const row = results.adapterOverhead.find(
      (r) => r.framework === framework && r.operation === operation,
    );
    return row === undefined ? 'n/a' : micros(row.ours.medianServerCpuMicros);
  };
  out.push(
    table(
      [
        'Operation',
        'handle() calls/s',
        'µs per call',
        'Baseline µs per call',
        'handle() / baseline',
        'Express: server CPU µs/request',
        'Hapi: server CPU µs/request',
        'node:http: server CPU µs/request',
        'Fastify: server CPU µs/request',
      ],
      results.coreAlone.map((row) => [
        row.operation,
        fmt(row.medianCallsPerSecond),
        fmt(row.microsPerCall, 1),
        fmt(row.baselineMicrosPerCall, 1),
        fmt(row.ratio, 2),
        serverMicros('express', row.operation),
        serverMicros('hapi', row.operation),
        serverMicros('node', row.operation),
        serverMicros('fastify', row.operation),
      ]),
    ),
    '',
    'Baseline: the same work with no core, in the same process and run, rounds interleaved: for list, the ' +
      "storage's `listPets` of the page (21 rows, as `handle()` asks) + `JSON.stringify` of the 20 pets; for " +
      'create, `JSON.parse` of the body + `createPet` + `JSON.stringify` of the pet. Target: handle() / baseline <= 1.5.',
    '',
    'The server CPU per request over HTTP (from section 1) minus the µs per `handle()` call is what HTTP, the ' +
      'framework and the adapter cost on top of the core.',
    '',
  );

  out.push(...pageCostSection(results, cell));

  out.push(...postgresSection(results, cell));

  out.push('## 5. Memory storage: bytes per pet', '');
  const memory = results.memory;
  out.push(
    table(
      ['Pets', 'Heap growth', 'Off-heap (typed arrays)', 'Bytes per pet', 'Target', 'Result'],
      [
        [
          fmt(memory.pets),
          `${fmt(memory.heapBytes)} B`,
          `${fmt(memory.externalBytes)} B`,
          fmt(memory.bytesPerPet, 1),
          ...cell('memory storage: bytes per pet'),
        ],
      ],
    ),
    '',
    `After a full GC, in a fresh process; names like \`${memory.nameExample}\`.`,
    '',
  );

  out.push("## 6. The API reference's script: server CPU per request", '');
  const docs = results.docsAssets;
  const old = docs.cases.find((row) => row.key === 'old')?.medianServerCpuMicros ?? Number.NaN;
  out.push(
    `Scalar's bundle (${fmt(docs.bytes.plain)} B, ${fmt(docs.bytes.br)} B as brotli) from one node:http server, ` +
      `${docs.connections} keep-alive connections, ${docs.secondsPerRun} s per run, cases interleaved; medians.`,
    '',
    table(
      [
        'Case',
        'Requests/s',
        'Server CPU µs/request',
        'Old / this',
        'Target',
        'Result',
        'Runs (µs)',
        'Choosing the answer, no HTTP (µs)',
      ],
      docs.cases.map((row) => [
        row.label,
        fmt(row.medianRps),
        micros(row.medianServerCpuMicros),
        row.key === 'old' ? '' : fmt(old / (row.medianServerCpuMicros ?? Number.NaN), 0),
        ...cell(`docs asset ${row.key}: server CPU µs per request`),
        row.serverCpuMicros.map(micros).join(', '),
        row.answerMicros === null ? '' : fmt(row.answerMicros, 2),
      ]),
    ),
    '',
    'The floor writes the same brotli answer from a route with no logic: what sending its bytes costs by ' +
      'itself (on loopback the kernel work of both ends is charged to the server). A browser asks for the ' +
      'script once: it is `immutable` for a year, so later visits send no request for it at all.',
    '',
  );

  out.push(...sqliteSection(results, cell));
  out.push(...targetsSection(results, enforced));
  return out.join('\n');
}

/** `--only`: the machine, section 1 for the chosen frameworks, and their targets. */
export function renderAdapterMarkdown(results: AdapterResults): string {
  const enforced = results.mode === 'full';
  const out = head(results, enforced);
  out.push(
    `> Adapter rows only (\`--only ${results.only.join(',')}\`): no other measurement ran.`,
    '',
    ...adapterSection(results.adapterOverhead, cellsOf(results)),
    ...targetsSection(results, enforced),
  );
  return out.join('\n');
}

/** `--only sqlite`: the machine, the SQLite rows of section 3, section 7, and their targets. */
export function renderSqliteMarkdown(results: SqliteResults): string {
  const enforced = results.mode === 'full';
  const cell = cellsOf(results);
  const out = head(results, enforced);
  out.push(
    '> SQLite only (`--only sqlite`): no other measurement ran.',
    '',
    ...pageCostSection(results, cell),
    ...sqliteSection(results, cell),
    ...targetsSection(results, enforced),
  );
  return out.join('\n');
}

/** results.json: the same values, to six significant digits (more would be noise). */
export function renderJson(results: Results | AdapterResults | SqliteResults): string {
  const trim = (_key: string, value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)
      ? Number(value.toPrecision(6))
      : value;
  return `${JSON.stringify(results, trim, 2)}\n`;
}
