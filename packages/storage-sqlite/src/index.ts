export { type BackupOptions, type BackupResult, backup } from './backup.js';
export { type MigrateOptions, migrate } from './migrate.js';
export { MIGRATIONS, type Migration, SCHEMA_VERSION } from './migrations.js';
export { type OpenProblem, SqliteOpenError } from './open-error.js';
export {
  DEFAULT_BUSY_TIMEOUT_MS,
  DEFAULT_PURGE_INTERVAL_MS,
  type SqliteStorageOptions,
  type Synchronous,
} from './options.js';
export type { MigrateResult } from './schema.js';
export { createSqliteStorage, type SqliteStorage } from './storage.js';
