import { readFileSync } from 'node:fs';
import { type PartitionConfig, runPartitionInside } from './run.js';

// The run's process, started by launch.ts inside the driver's namespace with its config file:
// exits 0 once the summary is written (passed or not), 2 when the run could not be made.

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: driver.ts CONFIG.json');
  process.exit(2);
}
const config = JSON.parse(readFileSync(file, 'utf8')) as PartitionConfig;
runPartitionInside(config).then(
  (summary) => {
    console.log(summary.report);
    process.exit(0);
  },
  (error: unknown) => {
    console.error(
      `partition run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(2);
  },
);
