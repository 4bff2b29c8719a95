import { runStorageContract } from '@petstore/conformance';
import { createMemoryStorage } from '../src/index.js';

runStorageContract({ name: 'memory', create: () => ({ storage: createMemoryStorage() }) });
