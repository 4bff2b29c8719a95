import { fileURLToPath } from 'node:url';
import { describeDocsPage } from '../../testing/index.js';

// GET /docs (the API reference) over HTTP and in headless Chromium, against the service's own bin.
describeDocsPage({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
