import { fileURLToPath } from 'node:url';
import { describeMetrics } from '../../testing/index.js';

// GET /metrics of the service's bin as a real process, read with a Prometheus text-format parser.
describeMetrics({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
