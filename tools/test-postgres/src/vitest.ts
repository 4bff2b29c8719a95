// Inside a vitest run only: these read what the global setup provided.
import type {} from './global-setup.js';

export {
  dropSchema,
  hostPool,
  pgbouncerUrl,
  postgresUrl,
  uniqueSchema,
} from './database.js';
export { type FreshStorages, freshStorages, type PostgresStorageModule } from './fresh-storage.js';
