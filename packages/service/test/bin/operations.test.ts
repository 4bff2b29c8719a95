import { fileURLToPath } from 'node:url';
import { describeOperations } from '../../testing/index.js';

// Connection fairness, the management port, the pre-stop delay and the pool size, as a real process.
describeOperations({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
