import { fileURLToPath } from 'node:url';
import { describeHostileTraffic } from '../../testing/index.js';

// Crash requests, parser-refused requests, a seeded fuzz run, slow clients (issue 10).
describeHostileTraffic({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
