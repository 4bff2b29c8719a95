import { RUNTIME_EXPECTATIONS } from '../src/expectations.js';
import { postgresStorage } from '../src/postgres.js';
import { memoryStorage } from '../src/store-host.js';
import { runConformanceOnRuntime } from '../src/suite.js';

runConformanceOnRuntime(
  'bun',
  { memory: memoryStorage, postgres: postgresStorage('conf_bun') },
  RUNTIME_EXPECTATIONS.bun,
);
