// The `petstore-migrate` bin: reads DATABASE_URL and an optional --schema (see run-cli.ts).
import { runCli } from './run-cli.js';

runCli(process.argv.slice(2), process.env).then((code) => {
  process.exitCode = code;
});
