import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PetStatus, PetStorage, PetStore } from '@petstore/core';
import { createPostgresStorage } from '@petstore/storage-postgres';
import { createSqliteStorage } from '@petstore/storage-sqlite';
import type { BenchConfig } from '../config.js';
import { AUTHORIZATION } from '../fixtures.js';
import { benchSchema, seedPostgres } from '../postgres-seed.js';
import type { Progress } from '../progress.js';
import type { PageCostRow } from '../results.js';
import { loopStore, seededMemoryStorage } from '../servers/ours.js';
import { seedSqlite } from '../sqlite-seed.js';
import { median } from '../stats.js';

interface Variant {
  readonly name: string;
  readonly status?: PetStatus;
  readonly deep: boolean;
}

export const VARIANTS: readonly Variant[] = [
  { name: 'first page', deep: false },
  { name: 'first page, status=sold', status: 'sold', deep: false },
  { name: 'deep cursor (90%)', deep: true },
  { name: 'deep cursor (90%), status=sold', status: 'sold', deep: true },
];

const LIMIT = 20;

/**
 * The cursor of the pet at 90% of the store (leaving at least a few filtered pages after it).
 * Its format is the core's (base64url of the id); `checkPages` fails loudly if that changes.
 */
const deepAfterId = (size: number): number =>
  Math.max(0, Math.min(Math.floor(size * 0.9), size - 4 * 3 * LIMIT));
const cursorFor = (afterId: number): string => Buffer.from(String(afterId)).toString('base64url');

function queryOf(variant: Variant, size: number): string {
  const parts = [`limit=${LIMIT}`];
  if (variant.status !== undefined) parts.push(`status=${variant.status}`);
  if (variant.deep) parts.push(`cursor=${cursorFor(deepAfterId(size))}`);
  return parts.join('&');
}

interface Sized {
  readonly size: number;
  readonly store: PetStore;
  readonly storage: PetStorage;
}

/** Every variant answers a full page that starts where it should, or the timing is meaningless. */
async function checkPages({ size, store }: Sized): Promise<void> {
  for (const variant of VARIANTS) {
    const response = await store.handle({
      method: 'GET',
      path: '/pets',
      query: queryOf(variant, size),
      headers: { authorization: AUTHORIZATION },
    });
    const pets =
      response.status === 200
        ? (JSON.parse(response.body ?? '[]') as { id: number; status: string }[])
        : [];
    const afterId = variant.deep ? deepAfterId(size) : 0;
    const first = pets[0];
    const ok =
      pets.length === LIMIT &&
      first !== undefined &&
      first.id > afterId &&
      first.id <= afterId + 3 &&
      pets.every((pet) => variant.status === undefined || pet.status === variant.status);
    if (!ok)
      throw new Error(
        `page ${variant.name} at ${size}: ${response.status} ${response.body?.slice(0, 200)}`,
      );
  }
}

type Samples = Map<string, number[]>;
const key = (size: number, variant: Variant, layer: 'handle' | 'storage') =>
  `${size}|${variant.name}|${layer}`;

/** One batch of timed pages through `handle()` and, alternating, straight from the storage. */
async function batch(
  sized: Sized,
  variant: Variant,
  count: number,
  samples: Samples | undefined,
): Promise<void> {
  const afterId = variant.deep ? deepAfterId(sized.size) : undefined;
  const request = {
    method: 'GET',
    path: '/pets',
    query: queryOf(variant, sized.size),
    headers: { authorization: AUTHORIZATION },
  };
  const pageQuery = { afterId, limit: LIMIT + 1, status: variant.status };
  const handleTimes = samples?.get(key(sized.size, variant, 'handle'));
  const storageTimes = samples?.get(key(sized.size, variant, 'storage'));
  for (let i = 0; i < count; i++) {
    let start = performance.now();
    const response = await sized.store.handle(request);
    handleTimes?.push(performance.now() - start);
    if (response.status !== 200) throw new Error(`page ${variant.name}: ${response.status}`);
    start = performance.now();
    await sized.storage.listPets(pageQuery);
    storageTimes?.push(performance.now() - start);
  }
}

async function measureStorage(
  kind: PageCostRow['storage'],
  stores: readonly Sized[],
  rounds: number,
  batchSize: number,
  progress: Progress,
  plannedPerRound: number,
): Promise<PageCostRow[]> {
  const samples: Samples = new Map();
  for (const sized of stores) {
    await checkPages(sized);
    for (const variant of VARIANTS) {
      samples.set(key(sized.size, variant, 'handle'), []);
      samples.set(key(sized.size, variant, 'storage'), []);
      await batch(sized, variant, batchSize, undefined); // warm-up: JIT, caches, buffers
    }
  }
  // Sizes and variants take turns within each round, so drift falls on all of them alike.
  for (let round = 1; round <= rounds; round++) {
    for (const sized of stores)
      for (const variant of VARIANTS) await batch(sized, variant, batchSize, samples);
    progress.done(plannedPerRound);
    progress.log(
      `page cost: ${kind} round ${round}/${rounds} (${stores.length} sizes x ${VARIANTS.length} pages x ${batchSize})`,
    );
  }
  const smallest = stores[0]?.size ?? 0;
  const largest = stores.at(-1)?.size ?? 0;
  return VARIANTS.map((variant) => {
    const byLayer = (layer: 'handle' | 'storage') =>
      Object.fromEntries(
        stores.map(({ size }) => [
          String(size),
          median(samples.get(key(size, variant, layer)) ?? []),
        ]),
      );
    const handleMs = byLayer('handle');
    const storageMs = byLayer('storage');
    return {
      storage: kind,
      variant: variant.name,
      handleMs,
      storageMs,
      handleRatio:
        (handleMs[String(largest)] ?? Number.NaN) / (handleMs[String(smallest)] ?? Number.NaN),
      storageRatio:
        (storageMs[String(largest)] ?? Number.NaN) / (storageMs[String(smallest)] ?? Number.NaN),
    };
  });
}

export async function measurePageCostMemory(
  config: BenchConfig,
  progress: Progress,
): Promise<PageCostRow[]> {
  const stores: Sized[] = [];
  for (const size of config.pages.sizes) {
    progress.log(`page cost: seeding memory storage with ${size.toLocaleString('en')} pets`);
    const storage = await seededMemoryStorage(size);
    stores.push({ size, storage, store: loopStore(storage) });
  }
  try {
    return await measureStorage(
      'memory',
      stores,
      config.pages.rounds,
      config.pages.memoryBatch,
      progress,
      2,
    );
  } finally {
    for (const { storage } of stores) await storage.close();
  }
}

export async function measurePageCostPostgres(
  config: BenchConfig,
  databaseUrl: string,
  progress: Progress,
  schemas: string[],
): Promise<PageCostRow[]> {
  const stores: Sized[] = [];
  try {
    for (const size of config.pages.sizes) {
      const schema = benchSchema(`pages_${size}`);
      schemas.push(schema);
      progress.log(
        `page cost: seeding PostgreSQL schema ${schema} with ${size.toLocaleString('en')} pets (generate_series)`,
      );
      const started = performance.now();
      await seedPostgres(databaseUrl, schema, size);
      progress.log(
        `page cost: seeded ${size.toLocaleString('en')} pets in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      const storage = createPostgresStorage({
        connectionString: databaseUrl,
        schema,
        poolConfig: { max: 2 },
      });
      stores.push({ size, storage, store: loopStore(storage) });
    }
    return await measureStorage(
      'postgres',
      stores,
      config.pages.rounds,
      config.pages.postgresBatch,
      progress,
      3,
    );
  } finally {
    for (const { storage } of stores) await storage.close();
  }
}

/** SQLite: a fresh file per size in a temp folder, migrated and seeded in one statement. */
export async function measurePageCostSqlite(
  config: BenchConfig,
  progress: Progress,
): Promise<PageCostRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-bench-pages-sqlite-'));
  const stores: Sized[] = [];
  try {
    for (const size of config.pages.sizes) {
      const path = join(dir, `pages-${size}.db`);
      const started = performance.now();
      seedSqlite(path, size);
      progress.log(
        `page cost: seeded SQLite ${path} with ${size.toLocaleString('en')} pets in ${((performance.now() - started) / 1000).toFixed(1)} s (recursive CTE)`,
      );
      const storage = createSqliteStorage({ path });
      stores.push({ size, storage, store: loopStore(storage) });
    }
    return await measureStorage(
      'sqlite',
      stores,
      config.pages.rounds,
      config.pages.sqliteBatch,
      progress,
      2,
    );
  } finally {
    for (const { storage } of stores) await storage.close();
    await rm(dir, { recursive: true, force: true });
  }
}
