import { createMemoryStorage } from '@petstore/storage-memory';
import type { OpenStorage } from './app.js';

/** Memory only: what a worker runs over here. */
export const openMemoryStorage: OpenStorage = async (spec) => {
  if (spec.kind !== 'memory') {
    throw new Error(`this runtime has memory storage only, not ${spec.kind}`);
  }
  return createMemoryStorage();
};
