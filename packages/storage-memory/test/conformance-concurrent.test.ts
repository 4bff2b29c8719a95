import { coreTarget, runConformance } from '@petstore/core/testing';
import { describe } from 'vitest';
import { createMemoryStorage } from '../src/index.js';

// The suite again with its cases running at the same time: each case keeps its
// own state (storage, store, hook events), so none sees another's.
describe.concurrent('concurrently', () => {
  runConformance({
    name: 'core over memory, cases in parallel',
    storage: () => createMemoryStorage(),
    serve: (store) => coreTarget(store),
  });
});
