import { fileURLToPath } from 'node:url';
import { describeSignalsThroughPnpm } from '../../testing/index.js';

// Started through `pnpm start` in a process group of its own, signalled as a terminal does (issue 10).
describeSignalsThroughPnpm({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
