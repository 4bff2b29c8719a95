import { fileURLToPath } from 'node:url';
import { describeCompiledApp } from '@petstore/service/testing';

// The production command: the built dist/main.js run by node alone (after `pnpm build`).
describeCompiledApp({ name: 'Express', appDir: fileURLToPath(new URL('..', import.meta.url)) });
