import { fileURLToPath } from 'node:url';
import { describeCompiledApp } from '../../testing/index.js';

// The production command: the built dist/main.js run by node alone (after `pnpm build`).
describeCompiledApp({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
