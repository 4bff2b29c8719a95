import { describe } from 'vitest';
import { runConformanceOn } from '../src/index.js';

// The suite again with its cases running at the same time: each case keeps its
// own state (storage, store, hook events), so none sees another's.
describe.concurrent('cases in parallel', () => {
  runConformanceOn('core', 'memory');
});
