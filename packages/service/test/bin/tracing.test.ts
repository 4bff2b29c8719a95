import { fileURLToPath } from 'node:url';
import { describeTracing } from '../../testing/index.js';

// OTLP traces to a real receiver: HTTP span, operation span, pg spans, log correlation.
describeTracing({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
