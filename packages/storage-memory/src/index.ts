export {
  createMemoryStorage,
  DEFAULT_MAX_IDEMPOTENCY_KEYS,
  type MemoryStorageOptions,
} from './memory-storage.js';
