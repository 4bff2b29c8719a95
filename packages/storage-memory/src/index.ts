export { createMemoryStorage, type MemoryStorageOptions } from './memory-storage.js';
