import { expect, it } from 'vitest';
import {
  describeReport,
  FUZZ_KEY,
  fuzzRequests,
  knownDifferencesOf,
  matrixHosts,
  runDifferential,
  runtimeHosts,
} from '../src/index.js';

// A new seed each run unless FUZZ_SEED pins one; FUZZ_COUNT for a longer run.
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const count = Number(process.env.FUZZ_COUNT ?? 2000);

const hosts = [...matrixHosts(), ...runtimeHosts()];
if (process.env.CI === 'true' && hosts.length < 10) {
  throw new Error('CI fuzzes every host and runtime, but a runtime binary is missing');
}

it(`every host and runtime gives one answer under the base path (seed ${seed}, ${count} requests)`, async () => {
  const report = await runDifferential({
    hosts,
    requests: fuzzRequests(FUZZ_KEY, count, seed),
    seed,
    knownDifferences: knownDifferencesOf(hosts.map((host) => host.name)),
  });
  const text = describeReport(report, `pnpm fuzz:diff --seed ${seed} --count ${count}`);
  console.log(text);
  expect(report.hosts.length).toBeGreaterThanOrEqual(7);
  expect(report.differences, text).toEqual([]);
  expect(report.violations, text).toEqual([]);
  // The run reached the API's own answers, not only refusals.
  const node = report.statuses.node ?? {};
  expect((node['200'] ?? 0) + (node['201'] ?? 0)).toBeGreaterThan(count / 10);
}, 300_000);
