import { RUNTIME_EXPECTATIONS } from '../src/expectations.js';
import { memoryStorage } from '../src/store-host.js';
import { runConformanceOnRuntime } from '../src/suite.js';

// workerd has no TCP client for pg here: memory storage only.
runConformanceOnRuntime('workerd', { memory: memoryStorage }, RUNTIME_EXPECTATIONS.workerd);
