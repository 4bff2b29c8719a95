/**
 * The past-capacity measurement alone (see measurements/overload.ts), printed as
 * markdown, with the JSON beside it when asked:
 *
 *   cd bench && node --conditions=@petstore/source --import tsx src/overload-run.ts [options]
 *
 * --smoke             the smoke durations (seconds in all)
 * --seconds N         seconds per level (default: the full config's)
 * --warmup N          warm-up seconds per level
 * --cases memory|postgres|both   (default memory)
 * --multiples LIST    offered loads as multiples of the capacity (default 0.5,1,1.5,3)
 * --max-delay MS      loadShedding.maxEventLoopDelayMs for the runs with shedding on
 * --max-in-flight N   loadShedding.maxInFlight for them
 *                     (either replaces the config's limits in every case: OVERLOAD_FULL)
 * --json FILE         also write the results there
 *
 * The PostgreSQL case starts a throwaway server (or uses BENCH_DATABASE_URL, 127.0.0.1 only).
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { LOAD_CPU, pinSelf } from './cpu.js';
import {
  measureOverload,
  type OverloadCaseName,
  type OverloadConfig,
  overloadConfig,
  overloadPlannedSeconds,
} from './measurements/overload.js';
import { renderOverloadMarkdown } from './overload-report.js';
import { type BenchDatabase, startDatabase } from './postgres.js';
import { dropSchemas } from './postgres-seed.js';
import { Progress } from './progress.js';
import { overloadTargets } from './targets.js';

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    cases: { type: 'string', default: 'memory' },
    'max-delay': { type: 'string' },
    'max-in-flight': { type: 'string' },
    multiples: { type: 'string' },
    json: { type: 'string' },
  },
});

const positive = (name: string, value: string | undefined, max: number): number | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0 || number > max) {
    throw new Error(`--${name} takes a number in (0, ${max}], got ${value}`);
  }
  return number;
};

const base = overloadConfig(flags.smoke ? 'smoke' : 'full');
const seconds = positive('seconds', flags.seconds, 60);
const warmup = positive('warmup', flags.warmup, 60);
const maxDelay = positive('max-delay', flags['max-delay'], 60_000);
const maxInFlight = positive('max-in-flight', flags['max-in-flight'], 100_000);
/** `--max-delay` / `--max-in-flight`: these limits, in every case, instead of the config's. */
const limits = {
  ...(maxDelay === undefined ? {} : { maxEventLoopDelayMs: maxDelay }),
  ...(maxInFlight === undefined ? {} : { maxInFlight }),
};
const multiples = flags.multiples?.split(',').map((item) => positive('multiples', item, 20) ?? 1);
const config: OverloadConfig = {
  ...base,
  ...(multiples === undefined ? {} : { multiples }),
  ...(seconds === undefined ? {} : { secondsPerLevel: seconds }),
  ...(warmup === undefined ? {} : { warmupSeconds: warmup }),
  ...(Object.keys(limits).length === 0
    ? {}
    : { loadShedding: { 'memory list': limits, 'postgres create': limits } }),
};
const CASES: Record<string, OverloadCaseName[]> = {
  memory: ['memory list'],
  postgres: ['postgres create'],
  both: ['memory list', 'postgres create'],
};
const cases = CASES[flags.cases];
if (cases === undefined)
  throw new Error(`--cases takes memory, postgres or both, not ${flags.cases}`);

pinSelf(LOAD_CPU);
const progress = new Progress();
progress.plan(cases.length * overloadPlannedSeconds(config));
let database: BenchDatabase | undefined;
const schemas: string[] = [];
try {
  if (cases.includes('postgres create')) {
    progress.log('starting PostgreSQL');
    database = await startDatabase();
  }
  const results = await measureOverload(config, progress, {
    databaseUrl: database?.url,
    schemas,
    cases,
  });
  process.stdout.write(`${renderOverloadMarkdown(results)}\n`);
  for (const target of overloadTargets(results)) {
    process.stdout.write(
      `${target.pass ? 'pass' : 'FAIL'}  ${target.name}: ${target.actual.toFixed(3)} (${target.target})\n`,
    );
  }
  if (flags.json !== undefined) await writeFile(flags.json, JSON.stringify(results, null, 2));
} finally {
  if (database !== undefined) {
    await dropSchemas(database.url, schemas).catch(() => undefined);
    await database.stop();
  }
}
