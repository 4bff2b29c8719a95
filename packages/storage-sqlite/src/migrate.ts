import { openDatabase } from './open.js';
import { resolveOptions } from './options.js';
import type { MigrateResult } from './schema.js';

export interface MigrateOptions {
  /** The database file; created when missing (its folder must exist). */
  readonly path: string;
  /** Longest wait for the write lock another connection holds, in ms. Default 5000. */
  readonly busyTimeoutMs?: number;
}

/**
 * Applies the pending migrations to the file and closes it: what a storage does when it opens
 * (unless `migrate: false`), for a deploy step or the CLI. All pending steps run in one
 * transaction under the file's write lock; running it again, or from two processes at once, is
 * safe. A file migrated by a newer version is refused, naming both versions.
 */
export function migrate(options: MigrateOptions): MigrateResult {
  const resolved = resolveOptions({ ...options, migrate: true });
  const { db, applied, version } = openDatabase(resolved);
  db.close();
  return { applied, version };
}
