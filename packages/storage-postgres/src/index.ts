export {
  DEFAULT_MIGRATE_LOCK_TIMEOUT_MS,
  type MigrateOptions,
  type MigrateResult,
  MigrationLockTimeoutError,
  migrate,
} from './migrate.js';
export type { Migration } from './migrations.js';
export { loadMigrations } from './migrations.js';
export {
  DEFAULT_CONNECTION_TIMEOUT_MILLIS,
  DEFAULT_QUERY_TIMEOUT_MILLIS,
  type HostPoolOptions,
  type OwnedPoolOptions,
  type PostgresStorageOptions,
  type ReplicaReadOutcome,
} from './options.js';
export type { NamedStatements } from './prepared.js';
export { DEFAULT_SCHEMA } from './schema-name.js';
export { createPostgresStorage, type PoolCounts, type PostgresStorage } from './storage.js';
