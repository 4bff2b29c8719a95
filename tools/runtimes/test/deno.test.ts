import { RUNTIME_EXPECTATIONS } from '../src/expectations.js';
import { postgresStorage } from '../src/postgres.js';
import { memoryStorage } from '../src/store-host.js';
import { runConformanceOnRuntime } from '../src/suite.js';

runConformanceOnRuntime(
  'deno',
  { memory: memoryStorage, postgres: postgresStorage('conf_deno') },
  RUNTIME_EXPECTATIONS.deno,
);
