import { runStorageContract } from '@petstore/core/testing';
import { createMemoryStorage } from '../src/index.js';

runStorageContract({ name: 'memory', create: () => ({ storage: createMemoryStorage() }) });
