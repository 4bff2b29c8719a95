import { fileURLToPath } from 'node:url';
import { describeSignalsThroughPnpm } from '@petstore/service/testing';

// Started through `pnpm start` in a process group of its own, signalled as a terminal does (issue 10).
describeSignalsThroughPnpm({
  name: 'Express',
  appDir: fileURLToPath(new URL('..', import.meta.url)),
});
