// The `petstore-sqlite` bin: `backup <db> <destination>` and `migrate <db>` (see run-cli.ts).
import { runCli } from './run-cli.js';

runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
