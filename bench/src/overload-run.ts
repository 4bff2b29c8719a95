/**
 * The past-capacity measurement alone (see measurements/overload.ts) with options of its own, for
 * short passes while working on it; printed as markdown, with the JSON beside it when asked:
 *
 *   cd bench && node --conditions=@petstore/source --import tsx src/overload-run.ts [options]
 *
 * --smoke             the smoke durations (seconds in all)
 * --cases LIST        fleet, postgres, alone (comma-separated; default all three)
 * --runs N            runs per mode (default the config's)
 * --seconds N         seconds per level
 * --warmup N          warm-up seconds per level
 * --multiples LIST    offered loads as multiples of the capacity (default 0.5,1,1.5,3)
 * --json FILE         also write the results there
 *
 * `pnpm bench -- --only overload` runs the same with the full durations and writes RESULTS.md;
 * the PostgreSQL case starts a throwaway server (or uses BENCH_DATABASE_URL, 127.0.0.1 only).
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { HAPROXY } from './balancer.js';
import { LOAD_CPU, pinSelf } from './cpu.js';
import {
  measureOverload,
  OVERLOAD_CASES,
  type OverloadCaseName,
  type OverloadConfig,
  overloadConfig,
  overloadPlannedSeconds,
} from './measurements/overload.js';
import { renderOverloadMarkdown } from './overload-report.js';
import { type BenchDatabase, startDatabase } from './postgres.js';
import { Progress } from './progress.js';
import { overloadTargets } from './targets.js';

const { values: flags } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    cases: { type: 'string' },
    runs: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
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
const runs = positive('runs', flags.runs, 10);
const seconds = positive('seconds', flags.seconds, 60);
const warmup = positive('warmup', flags.warmup, 60);
const multiples = flags.multiples?.split(',').map((item) => positive('multiples', item, 20) ?? 1);
const config: OverloadConfig = {
  ...base,
  ...(multiples === undefined ? {} : { multiples }),
  ...(runs === undefined ? {} : { runs: Math.round(runs) }),
  ...(seconds === undefined ? {} : { secondsPerLevel: seconds }),
  ...(warmup === undefined ? {} : { warmupSeconds: warmup }),
};
const byWord = (word: string): OverloadCaseName => {
  const found = OVERLOAD_CASES.find((name) => name.startsWith(`${word.trim()} `));
  if (found === undefined) throw new Error(`--cases takes fleet, postgres or alone, not ${word}`);
  return found;
};
const cases = flags.cases === undefined ? OVERLOAD_CASES : flags.cases.split(',').map(byWord);

const progress = new Progress();
progress.plan(cases.length * overloadPlannedSeconds(config));
let database: BenchDatabase | undefined;
try {
  if (cases.includes('postgres keyed create')) {
    progress.log('starting PostgreSQL');
    database = await startDatabase();
  }
  // After PostgreSQL started, as in run.ts.
  pinSelf(LOAD_CPU);
  const results = await measureOverload(config, progress, {
    databaseUrl: database?.url,
    ownDatabase: database !== undefined && database.source !== 'BENCH_DATABASE_URL',
    haproxy: HAPROXY !== '',
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
  await database?.stop();
}
