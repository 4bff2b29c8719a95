import { coreTarget, runConformance } from '@petstore/core/testing';
import { createMemoryStorage } from '../src/index.js';

// The core alone, over this storage: the reference every adapter must match
// (it lives here so that core has no dependency on a storage). The runner's
// closing test fails unless every case ran.
runConformance({
  name: 'core over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => coreTarget(store),
});
