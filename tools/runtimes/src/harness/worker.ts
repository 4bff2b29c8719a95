import { createHarness } from './app.js';
import { openMemoryStorage } from './memory-only.js';

// workerd serves the default export's `fetch`; the socket and port come from its config.
export default { fetch: createHarness(openMemoryStorage) };
