import { coreTarget, runConformance } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';

// The core alone: the reference every adapter must match. The runner's closing
// test fails unless every case ran.
runConformance({
  name: 'core over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => coreTarget(store),
});
