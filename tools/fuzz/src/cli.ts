// The differential fuzzer from the command line:
//   pnpm fuzz:diff [--seed N] [--count N] [--hosts node,express,...]
// A new seed each run unless one is given; the seed is printed, with the command that replays it.
import { parseArgs } from 'node:util';
import { FUZZ_KEY, matrixHosts, runtimeHosts } from './hosts.js';
import { knownDifferencesOf } from './known-differences.js';
import { fuzzRequests } from './requests.js';
import { describeReport, runDifferential } from './run.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    seed: { type: 'string' },
    count: { type: 'string', default: '2000' },
    hosts: { type: 'string' },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const count = Number(values.count);
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(count) || count < 1) {
  console.error('usage: pnpm fuzz:diff [--seed N] [--count N] [--hosts node,express,...]');
  process.exit(2);
}
const names = values.hosts?.split(',');
const hosts = [...matrixHosts(names), ...runtimeHosts(names)];
console.log(
  `differential fuzz: seed ${seed}, ${count} requests to ${hosts.map((h) => h.name).join(', ')}`,
);
const report = await runDifferential({
  hosts,
  requests: fuzzRequests(FUZZ_KEY, count, seed),
  seed,
  knownDifferences: knownDifferencesOf(hosts.map((host) => host.name)),
  onProgress: (done, total) => console.log(`  ${done} of ${total} answers`),
});
const only = values.hosts === undefined ? '' : ` --hosts ${values.hosts}`;
console.log(describeReport(report, `pnpm fuzz:diff --seed ${seed} --count ${count}${only}`));
process.exitCode = report.differences.length + report.violations.length > 0 ? 1 : 0;
