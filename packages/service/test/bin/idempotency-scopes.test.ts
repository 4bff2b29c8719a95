import { fileURLToPath } from 'node:url';
import { describeIdempotencyScopes } from '../../testing/index.js';

// On PostgreSQL, with tracing to a real receiver: no digest of a key in spans, pg_stat_activity
// or the log; a scope-secret rotation keeps replays across restarts.
describeIdempotencyScopes({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
