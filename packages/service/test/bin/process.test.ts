import { fileURLToPath } from 'node:url';
import { describeExampleApp } from '../../testing/index.js';

// The shared behaviour (API, request log, health, shutdown, PostgreSQL), run against the service's own bin.
describeExampleApp({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
