// The partition schedule from the command line (docs/operations.md, "Partitions"): the short
// pass CI runs, the full schedule, or the full schedule repeated for --duration seconds (the
// soak), with the report, the history, the timeline and the memory chart in --out. Needs root
// (network namespaces) and the Debian packages tools/cluster runs on. Exit status: 0 passed,
// 1 failed (the report says why), 2 the run could not be made.
//
//   sudo npx -y pnpm@10 --filter @petstore/partition partition --schedule full
//   sudo npx -y pnpm@10 --filter @petstore/partition partition --schedule full --duration 3600
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { missingTools, wholeNumber as number } from '@petstore/cluster';
import { cannotRun, runPartition } from './launch.js';

const USAGE = `usage: cli.ts [--schedule short|full] [--duration SECONDS] [--creators N] [--walkers N]
              [--out DIR] [--name NAME]

  --schedule   short (CI's pass, about 4 minutes) or full (each fault held 20-25 s, a minute of
               flapping; about 8 minutes) (full)
  --duration   repeat the schedule until this many seconds have passed: a soak (0: once)
  --creators   clients making keyed creates through the balancer (4)
  --walkers    clients walking every page of the list (2)
  --out        where the report, history and charts go (.tmp/artifacts)
  --name       their base name (partition-<schedule>, or partition-soak)`;

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const { values } = parseArgs({
    args: args[0] === '--' ? args.slice(1) : args,
    options: {
      schedule: { type: 'string', default: 'full' },
      duration: { type: 'string', default: '0' },
      creators: { type: 'string', default: '4' },
      walkers: { type: 'string', default: '2' },
      out: {
        type: 'string',
        default: fileURLToPath(new URL('../../../.tmp/artifacts', import.meta.url)),
      },
      name: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.schedule !== 'short' && values.schedule !== 'full') {
    throw new Error(`--schedule: short or full, got ${values.schedule}`);
  }
  const durationSeconds = number('duration', values.duration, 0, 24 * 3600);
  const why = cannotRun() ?? missingTools;
  if (why !== undefined) throw new Error(why);
  const summary = await runPartition({
    schedule: values.schedule,
    durationSeconds,
    creators: number('creators', values.creators, 1, 32),
    walkers: number('walkers', values.walkers, 0, 8),
    pageSize: 100,
    out: values.out,
    name: values.name ?? (durationSeconds > 0 ? 'partition-soak' : `partition-${values.schedule}`),
  });
  console.log(`report, history and charts: ${Object.values(summary.artifacts).join(', ')}`);
  return summary.passed ? 0 : 1;
}

main().then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    console.error(`partition: ${error instanceof Error ? error.message : String(error)}`);
    console.error(USAGE);
    process.exitCode = 2;
  },
);
