import { createMemoryStorage } from '@petstore/storage-memory';
import { coreTarget, runConformance } from '@petstore/core/testing';

// The core alone: the reference every adapter must match.
runConformance({
  name: 'core over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => coreTarget(store),
});
