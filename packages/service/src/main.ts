#!/usr/bin/env node
import { checkNodeVersion } from './node-version.js';

// `petstore-service`. First of all, whether this Node can run it: on one too old, a line that
// says what to do rather than a failure deep in start-up (no such built-in module node:sqlite).
// The service itself is loaded only after that check (`serve.ts`).
const check = checkNodeVersion(process.versions.node, process.env);
for (const line of check?.lines ?? []) console.error(line);
if (check?.fatal === true) process.exitCode = 1;
else await import('./serve.js');
