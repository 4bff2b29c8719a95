import type {
  AdapterOverhead,
  CoreAlone,
  DocsAssets,
  PageCostRow,
  PostgresCreate,
  Results,
  Target,
} from './results.js';

/** The targets, checked against one run's figures. */
export const LIMITS = {
  /** Express and Hapi: their own overhead hides some of ours. */
  listThroughput: 0.9,
  createThroughput: 0.85,
  /** node:http and Fastify, list and create alike. */
  fastHostThroughput: 0.85,
  p99: 1.2,
  memoryPageGrowth: 1.5,
  postgresPageGrowth: 2,
  postgresCreate: 0.8,
  bytesPerPet: 256,
  /** µs per `handle()` call over µs for the storage call + JSON alone. */
  coreOverBaseline: 1.5,
  /** Server CPU µs per request for the API reference's script, br-encoded or 304. */
  docsAssetMicros: 100,
} as const;

const atLeast = (name: string, actual: number, limit: number): Target => ({
  name,
  target: `>= ${limit.toFixed(2)}`,
  actual,
  pass: actual >= limit,
});
const atMost = (name: string, actual: number, limit: number): Target => ({
  name,
  target: `<= ${Number.isInteger(limit) ? limit : limit.toFixed(2)}`,
  actual,
  pass: actual <= limit,
});

export function adapterTargets(row: AdapterOverhead): Target[] {
  const label = `${row.framework} ${row.operation}`;
  const fastHost = row.framework === 'node' || row.framework === 'fastify';
  const throughput = fastHost
    ? LIMITS.fastHostThroughput
    : row.operation === 'list'
      ? LIMITS.listThroughput
      : LIMITS.createThroughput;
  return [
    atLeast(`${label}: throughput ours/bare`, row.throughputRatio, throughput),
    atMost(`${label}: p99 ours/bare`, row.p99Ratio, LIMITS.p99),
  ];
}

export function coreTargets(row: CoreAlone): Target[] {
  const baseline =
    row.operation === 'list'
      ? 'listPets + JSON.stringify'
      : 'JSON.parse + createPet + JSON.stringify';
  return [
    atMost(`core ${row.operation}: handle() / (${baseline})`, row.ratio, LIMITS.coreOverBaseline),
  ];
}

export function pageTargets(row: PageCostRow, largest: number, smallest: number): Target[] {
  const limit = row.storage === 'memory' ? LIMITS.memoryPageGrowth : LIMITS.postgresPageGrowth;
  const label = `${row.storage} ${row.variant}: page at ${largest.toLocaleString('en')} / at ${smallest.toLocaleString('en')}`;
  return [
    atMost(`${label} (handle)`, row.handleRatio, limit),
    atMost(`${label} (storage alone)`, row.storageRatio, limit),
  ];
}

export function docsAssetTargets({ cases }: DocsAssets): Target[] {
  return cases
    .filter((row) => row.key === 'br' || row.key === '304')
    .map((row) =>
      atMost(
        `docs asset ${row.key}: server CPU µs per request`,
        row.medianServerCpuMicros ?? Number.NaN,
        LIMITS.docsAssetMicros,
      ),
    );
}

export function allTargets(results: Omit<Results, 'targets'>): Target[] {
  const sizes = results.pageCost.sizes;
  const targets = [
    ...results.adapterOverhead.flatMap(adapterTargets),
    ...results.coreAlone.flatMap(coreTargets),
    ...results.pageCost.rows.flatMap((row) => pageTargets(row, sizes.at(-1) ?? 0, sizes[0] ?? 0)),
  ];
  if ('ratio' in results.postgresCreate) {
    targets.push(
      atLeast(
        'postgres create: service/direct pg',
        (results.postgresCreate as PostgresCreate).ratio,
        LIMITS.postgresCreate,
      ),
    );
  }
  targets.push(
    atMost('memory storage: bytes per pet', results.memory.bytesPerPet, LIMITS.bytesPerPet),
    ...docsAssetTargets(results.docsAssets),
  );
  return targets;
}
