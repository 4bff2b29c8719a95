/**
 * 6. Serving the API reference's script (Scalar's bundle, 3.5 MB): the server CPU per request of
 * `@petstore/api-reference` (brotli bytes built once; a 304 on a matching ETag) against the way
 * the example apps' docs-route.ts served it (the string encoded into UTF-8 on every request, no
 * compression, no ETag), side by side in one run, on the same server process.
 *
 * Alone: `node --conditions=@petstore/source --import tsx src/measurements/docs-assets.ts`
 * (from bench/; `--smoke` for seconds) prints the figures without the rest of the bench.
 */
import { readFileSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ApiReference, createApiReference } from '@petstore/api-reference';
import { apiReferenceListener } from '@petstore/api-reference/node';
import type { HandlerResponse } from '@petstore/core';
import type { BenchChild } from '../child.js';
import { type BenchConfig, FULL, SMOKE } from '../config.js';
import { LOAD_CPU, pinSelf } from '../cpu.js';
import { withCpu } from '../cpu-usage.js';
import { assertLoopback } from '../load.js';
import { Progress } from '../progress.js';
import type { DocsAssetCase, DocsAssets } from '../results.js';
import { startServer } from '../servers/start.js';
import { median } from '../stats.js';

/** Where the old way answers, and the floor; the package answers `/docs` and its scripts. */
const OLD_PATH = '/old/scalar.js';
const FLOOR_PATH = '/floor/scalar.js';

/** The bundle as the package built it (its manifest names the file). */
function builtBundle(): { readonly file: string; readonly bytes: Buffer } {
  const root = dirname(
    createRequire(import.meta.url).resolve('@petstore/api-reference/package.json'),
  );
  const assets = join(root, 'dist', 'assets');
  const { scalar } = JSON.parse(readFileSync(join(assets, 'manifest.json'), 'utf8')) as {
    scalar: { file: string };
  };
  return { file: scalar.file, bytes: readFileSync(join(assets, scalar.file)) };
}

/**
 * The server child's side: the package's node:http listener, and beside it the old way, exactly
 * as docs-route.ts + the front door did it: the bundle read once as a string, and that string
 * handed to `end()` on every request, so Node encodes its 3.5 million characters each time. The
 * floor: the package's own brotli answer written by a bare route with no logic at all, what
 * sending those bytes costs by itself.
 */
/** The reference's answer to a GET of `path` (a full path, below `/docs`), as mounted there. */
const answerOf = (
  reference: ApiReference,
  path: string,
  headers: Readonly<Record<string, string>>,
): Promise<HandlerResponse> =>
  reference.handle({
    method: 'GET',
    path: path.slice(reference.path.length) || '/',
    headers,
    publicPath: reference.path,
  });

export async function docsAssetsServer(): Promise<Server> {
  const bundle = builtBundle();
  const text = bundle.bytes.toString('utf8');
  const oldHeaders = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': 'public, max-age=86400',
  };
  const floor = await answerOf(createApiReference(), `/docs/${bundle.file}`, {
    'accept-encoding': 'br',
  });
  const floorBody = floor.body ?? '';
  const floorHeaders = { ...floor.headers, 'content-length': String(Buffer.byteLength(floorBody)) };
  const docs = apiReferenceListener();
  return createServer((req, res) =>
    docs(req, res, () => {
      if (req.url === OLD_PATH) res.writeHead(200, oldHeaders).end(text);
      else if (req.url === FLOOR_PATH) res.writeHead(200, floorHeaders).end(floorBody);
      else res.writeHead(404).end();
    }),
  );
}

interface Case {
  readonly key: DocsAssetCase['key'];
  readonly label: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly status: number;
}

async function cases(): Promise<Case[]> {
  const { file } = builtBundle();
  const path = `/docs/${file}`;
  const etag =
    (await answerOf(createApiReference(), path, { 'accept-encoding': 'br' })).headers.etag ?? '';
  const browser = 'gzip, deflate, br, zstd';
  return [
    {
      key: 'old',
      label: 'old: the string encoded per request (docs-route.ts)',
      path: OLD_PATH,
      headers: { 'accept-encoding': browser },
      status: 200,
    },
    {
      key: 'br',
      label: 'new: brotli bytes built once',
      path,
      headers: { 'accept-encoding': browser },
      status: 200,
    },
    {
      key: 'floor',
      label: 'floor: the same brotli bytes from a bare route',
      path: FLOOR_PATH,
      headers: { 'accept-encoding': browser },
      status: 200,
    },
    {
      key: '304',
      label: 'new: 304 on the ETag',
      path,
      headers: { 'accept-encoding': browser, 'if-none-match': etag },
      status: 304,
    },
  ];
}

interface LoopResult {
  readonly requests: number;
  readonly seconds: number;
  /** The answers that were not the expected status and coding. */
  readonly wrong: number;
}

/**
 * `connections` keep-alive connections, each sending its next request when the last answer
 * has been read to the end, until `seconds` pass or `maxRequests` are answered.
 */
async function loop(
  origin: string,
  spec: Case,
  connections: number,
  seconds: number,
  maxRequests: number,
): Promise<LoopResult> {
  assertLoopback(origin);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let requests = 0;
  let wrong = 0;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(`${origin}${spec.path}`, { headers: spec.headers, agent }, (res) => {
        const coding = res.headers['content-encoding'];
        const expected =
          spec.key === 'br' || spec.key === 'floor' ? coding === 'br' : coding === undefined;
        if (res.statusCode !== spec.status || !expected) wrong++;
        res.on('end', resolve).on('error', reject).resume();
      });
      req.setTimeout(10_000, () => req.destroy(new Error(`${spec.path}: no answer in 10 s`)));
      req.on('error', reject).end();
    });
  const worker = async () => {
    while (performance.now() < deadline && requests < maxRequests) {
      requests++;
      await once();
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    agent.destroy();
  }
  return { requests, seconds: (performance.now() - started) / 1000, wrong };
}

/** How long it runs: a few rounds of each case, interleaved. */
export const docsAssetsPlan = (config: BenchConfig) =>
  config.mode === 'full'
    ? { connections: 4, secondsPerRun: 3, rounds: 3, maxRequests: Number.POSITIVE_INFINITY }
    : { connections: 2, secondsPerRun: 30, rounds: 1, maxRequests: 30 };

export const docsAssetsSeconds = (config: BenchConfig): number => {
  const { secondsPerRun, rounds } = docsAssetsPlan(config);
  return config.mode === 'full' ? 4 * rounds * secondsPerRun + 3 : 5;
};

/**
 * CPU µs of the package's own work per request, without HTTP: picking the answer for these
 * headers (method, path, coding, ETag), a million times over.
 */
async function answerMicros(spec: Case): Promise<number> {
  const reference = createApiReference();
  const calls = 1_000_000;
  let found = 0;
  const before = process.cpuUsage();
  for (let call = 0; call < calls; call++) {
    if ((await answerOf(reference, spec.path, spec.headers)).status === spec.status) found++;
  }
  const spent = process.cpuUsage(before);
  if (found !== calls) throw new Error(`docs assets ${spec.key}: unexpected answer in process`);
  return (spent.user + spent.system) / calls;
}

/** The cases against one server child, rounds interleaved (A B C D, D C B A, ...). */
export async function measureDocsAssets(
  config: BenchConfig,
  progress: Progress,
): Promise<DocsAssets> {
  const { connections, secondsPerRun, rounds, maxRequests } = docsAssetsPlan(config);
  const all = await cases();
  progress.log('docs assets: starting the server (package + old way) on the server core');
  const child: BenchChild = await startServer({ kind: 'docs-assets' });
  const origin = `http://127.0.0.1:${child.port}`;
  const runs = new Map(all.map((spec) => [spec.key, [] as { rps: number; cpu: number | null }[]]));
  try {
    for (const spec of all) {
      const check = await loop(origin, spec, 1, 10, 3);
      if (check.wrong > 0) throw new Error(`docs assets ${spec.key}: unexpected answer`);
    }
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? all : [...all].reverse();
      for (const spec of order) {
        const run = await withCpu(child.pid, () =>
          loop(origin, spec, connections, secondsPerRun, maxRequests),
        );
        const { requests, seconds, wrong } = run.result;
        if (wrong > 0 || requests === 0) {
          throw new Error(`docs assets ${spec.key}: ${wrong} wrong answers of ${requests}`);
        }
        const cpu = run.cpu.process === undefined ? null : (run.cpu.process * 1e6) / requests;
        runs.get(spec.key)?.push({ rps: requests / seconds, cpu });
        progress.done(secondsPerRun);
        progress.log(
          `docs assets: ${spec.key} round ${round}/${rounds}: ${Math.round(requests / seconds)} req/s, server CPU ${cpu === null ? 'n/a' : cpu.toFixed(1)} µs/request`,
        );
      }
    }
  } finally {
    await child.stop();
  }
  const reference = createApiReference();
  const path = all[1]?.path ?? '';
  const size = async (encoding: string) =>
    Buffer.byteLength(
      (await answerOf(reference, path, { 'accept-encoding': encoding })).body ?? '',
    );
  const measuredCases = [];
  for (const spec of all) {
    const measured = runs.get(spec.key) ?? [];
    const cpus = measured.map((run) => run.cpu);
    const known = cpus.filter((cpu): cpu is number => cpu !== null);
    measuredCases.push({
      key: spec.key,
      label: spec.label,
      answerMicros: spec.key === 'br' || spec.key === '304' ? await answerMicros(spec) : null,
      requestsPerSecond: measured.map((run) => run.rps),
      serverCpuMicros: cpus,
      medianRps: median(measured.map((run) => run.rps)),
      medianServerCpuMicros: known.length === cpus.length ? median(known) : null,
    });
  }
  return {
    connections,
    secondsPerRun,
    bytes: { plain: await size('identity'), br: await size('br') },
    cases: measuredCases,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const config = process.argv.includes('--smoke') ? SMOKE : FULL;
  pinSelf(LOAD_CPU);
  const progress = new Progress();
  progress.plan(docsAssetsSeconds(config));
  const result = await measureDocsAssets(config, progress);
  for (const row of result.cases) {
    const own =
      row.answerMicros === null ? '' : `; choosing the answer ${row.answerMicros.toFixed(2)} µs`;
    const runs = row.serverCpuMicros.map((cpu) => cpu?.toFixed(1)).join(', ');
    console.log(
      `${row.label}: ${row.medianServerCpuMicros?.toFixed(1) ?? 'n/a'} µs server CPU per request, ${Math.round(row.medianRps)} req/s (runs: ${runs} µs)${own}`,
    );
  }
  process.exit(0);
}
