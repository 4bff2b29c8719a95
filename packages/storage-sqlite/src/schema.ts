import type { Database } from './driver.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { SqliteOpenError } from './open-error.js';

export interface MigrateResult {
  /** Migrations this call applied, in order (`['001_init']`); empty when already up to date. */
  readonly applied: readonly string[];
  /** The schema version the file is at now. */
  readonly version: number;
}

interface RecordedRow {
  readonly version: number;
  readonly name: string;
  readonly checksum: string;
}

const TABLE = 'petstore_migrations';

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  version    INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  checksum   TEXT    NOT NULL,
  applied_at TEXT    NOT NULL
) STRICT`;

/** The rows of the migrations table, or none when the file has no such table yet. */
function recorded(db: Database): RecordedRow[] {
  const exists = db
    .prepare(`SELECT 1 AS found FROM sqlite_schema WHERE type = 'table' AND name = ?`)
    .get(TABLE);
  if (exists === undefined) return [];
  return db
    .prepare(`SELECT version, name, checksum FROM ${TABLE} ORDER BY version`)
    .all()
    .map((row) => ({
      version: Number(row.version),
      name: String(row.name),
      checksum: String(row.checksum),
    }));
}

/** The version the file says it is at: the migrations table, or `user_version` if higher. */
function fileVersion(db: Database, rows: readonly RecordedRow[]): number {
  const userVersion = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
  return Math.max(userVersion, ...rows.map((row) => row.version), 0);
}

/** Refuses a file this version cannot serve: migrated further, or with a step changed since. */
function checkKnown(
  path: string,
  version: number,
  rows: readonly RecordedRow[],
  migrations: readonly Migration[],
): void {
  const known = migrations.length;
  if (version > known) {
    throw new SqliteOpenError(
      path,
      'newer-version',
      `${path} is at schema version ${version}, written by a newer @petstore/storage-sqlite; this version knows versions up to ${known}. Upgrade the package (a file is never migrated down)`,
    );
  }
  for (const row of rows) {
    const migration = migrations[row.version - 1];
    if (migration !== undefined && migration.checksum !== row.checksum) {
      throw new SqliteOpenError(
        path,
        'changed-migration',
        `${path}: migration ${migration.name} was changed after it was applied to this file (checksums differ)`,
      );
    }
  }
}

/**
 * Runs `body` holding the file's write lock (`BEGIN IMMEDIATE`, waiting up to the busy timeout)
 * after proving the file can be written: `BEGIN IMMEDIATE` alone succeeds on a read-only file,
 * so the header's `user_version` is written (to the value it holds, or the new version).
 * Commits when `body` says so (something changed), else rolls back; rolls back when it throws.
 */
function underWriteLock<T>(db: Database, body: () => { result: T; commit: boolean }): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const { result, commit } = body();
    db.exec(commit ? 'COMMIT' : 'ROLLBACK');
    return result;
  } catch (error) {
    if (db.isTransaction !== false) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // SQLite may have rolled back already (a full disk, an I/O error): nothing left to undo.
      }
    }
    throw error;
  }
}

/** Writes the header's `user_version`: the write probe, and the version for other tools. */
const writeVersion = (db: Database, version: number): void => {
  db.exec(`PRAGMA user_version = ${Math.trunc(version)}`);
};

/**
 * Applies the pending migrations in one transaction that holds the write lock: two processes
 * opening one new file take turns, and the second finds nothing left to do. Each step is
 * recorded in `petstore_migrations` (version, name, checksum) and `PRAGMA user_version` follows.
 */
export function migrateDatabase(
  db: Database,
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
): MigrateResult {
  return underWriteLock(db, () => {
    db.exec(CREATE_TABLE);
    const rows = recorded(db);
    const version = fileVersion(db, rows);
    checkKnown(path, version, rows, migrations);
    const done = new Set(rows.map((row) => row.version));
    const applied: string[] = [];
    const record = db.prepare(
      `INSERT INTO ${TABLE} (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`,
    );
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, migration.checksum, new Date().toISOString());
      applied.push(migration.name);
    }
    const now = Math.max(version, migrations.length);
    // A header field: tools without this package (the sqlite3 shell) can read the version.
    writeVersion(db, now);
    return { result: { applied, version: now }, commit: applied.length > 0 };
  });
}

/**
 * For `migrate: false`: the file must already be at this version (older: refused, run the
 * migrations first). The write lock is taken and released, so a read-only or locked file is
 * refused at open as it is when migrating.
 */
export function checkSchema(
  db: Database,
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
): number {
  return underWriteLock(db, () => {
    const rows = recorded(db);
    const version = fileVersion(db, rows);
    checkKnown(path, version, rows, migrations);
    writeVersion(db, version);
    if (version < migrations.length) {
      throw new SqliteOpenError(
        path,
        'not-migrated',
        `${path} is at schema version ${version}; this version needs ${migrations.length}. Open it with migrate: true, or run \`petstore-sqlite migrate ${path}\``,
      );
    }
    return { result: version, commit: false };
  });
}
