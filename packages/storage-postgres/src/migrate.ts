import { createHash } from 'node:crypto';
import pg, { type ClientBase, type Pool } from 'pg';
import { lease } from './lease.js';
import { loadMigrations, type Migration } from './migrations.js';
import { DEFAULT_SCHEMA, quoteSchema } from './schema-name.js';

export interface MigrateOptions {
  /** Run on a connection from this pool (left open afterwards). */
  readonly pool?: Pool;
  /** Or connect with this URL (one connection, closed afterwards). */
  readonly connectionString?: string;
  /** Schema to create and migrate. Default `petstore`. */
  readonly schema?: string;
  /** With `connectionString`: how long to try connecting. Default 10000. */
  readonly connectionTimeoutMillis?: number;
  /**
   * Longest wait for a lock: the migration lock another instance holds while it migrates, and
   * the table locks a migration needs. Past it, `migrate()` rejects with `MigrationLockTimeoutError`
   * rather than waiting on. Default 5000.
   */
  readonly lockTimeoutMs?: number;
}

export const DEFAULT_MIGRATE_LOCK_TIMEOUT_MS = 5000;

/** Another session held a lock `migrate()` needed for longer than `lockTimeoutMs`. */
export class MigrationLockTimeoutError extends Error {
  override readonly name = 'MigrationLockTimeoutError';
  constructor(
    readonly schema: string,
    readonly lockTimeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(
      `migrating schema "${schema}" waited ${lockTimeoutMs} ms for a lock another session holds ` +
        '(another instance migrating, or a long transaction on its tables); nothing was changed. ' +
        'Retry, or raise lockTimeoutMs.',
      options,
    );
  }
}

export interface MigrateResult {
  /** Migrations this call applied, in order (`['001_init']`); empty when already up to date. */
  readonly applied: readonly string[];
  /** Highest migration version now recorded in the schema. */
  readonly version: number;
}

// pg_advisory_xact_lock(int4, int4): a fixed class ("pets" in ASCII) and a key per schema, so
// two schemas migrate independently while two processes migrating one schema take turns.
export const MIGRATION_LOCK_CLASS = 0x70657473;
export const migrationLockKey = (schema: string): number =>
  createHash('sha256').update(schema).digest().readInt32BE(0);

const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Applies the package's pending SQL migrations to `schema`, each once, in one transaction that
 * first takes a transaction-scoped advisory lock: safe to run twice, from several processes at
 * once, and through a transaction-mode pooler (PgBouncer), since the lock, the work and its
 * release all belong to that one transaction. Waiting for a lock is bounded by `lockTimeoutMs`.
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const quoted = quoteSchema(schema);
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_MIGRATE_LOCK_TIMEOUT_MS;
  if (!Number.isSafeInteger(lockTimeoutMs) || lockTimeoutMs < 1) {
    throw new TypeError(`lockTimeoutMs must be a positive integer, got ${String(lockTimeoutMs)}`);
  }
  const migrations = await loadMigrations();
  return withClient(options, (client) =>
    migrateWith(client, schema, quoted, migrations, lockTimeoutMs),
  );
}

async function withClient<T>(
  options: MigrateOptions,
  body: (client: ClientBase) => Promise<T>,
): Promise<T> {
  if (options.pool !== undefined && options.connectionString !== undefined) {
    throw new TypeError('give either `pool` or `connectionString`, not both');
  }
  if (options.pool !== undefined) {
    const { client, release } = await lease(options.pool);
    let failure: unknown;
    try {
      return await body(client);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // After a failure the session's state (open transaction, lock) is unknown: discard it.
      release(failure === undefined ? undefined : toError(failure));
    }
  }
  if (options.connectionString === undefined) {
    throw new TypeError('give `pool` or `connectionString`');
  }
  const client = new pg.Client({
    connectionString: options.connectionString,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
    application_name: 'petstore-migrate',
  });
  // A connection that dies while we hold it emits `error`; without a listener that would
  // crash the process. The failure also reaches the pending query, which is what we report.
  const ignore = (): void => undefined;
  client.on('error', ignore);
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end().catch(ignore);
  }
}

const toError = (value: unknown): Error =>
  value instanceof Error ? value : new Error(String(value));

async function migrateWith(
  client: ClientBase,
  schema: string,
  quoted: string,
  migrations: readonly Migration[],
  lockTimeoutMs: number,
): Promise<MigrateResult> {
  // One message: through a transaction-mode pooler, a transaction is the unit that keeps its
  // server connection, and SET LOCAL ends with it.
  await client.query(`BEGIN; SET LOCAL lock_timeout = ${lockTimeoutMs}`);
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [
      MIGRATION_LOCK_CLASS,
      migrationLockKey(schema),
    ]);
    const result = await applyPending(client, schema, quoted, migrations);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (isLockTimeout(error))
      throw new MigrationLockTimeoutError(schema, lockTimeoutMs, { cause: error });
    throw error;
  }
}

const isLockTimeout = (error: unknown): boolean =>
  error instanceof Error && Reflect.get(error, 'code') === LOCK_NOT_AVAILABLE;

async function applyPending(
  client: ClientBase,
  schema: string,
  quoted: string,
  migrations: readonly Migration[],
): Promise<MigrateResult> {
  const table = `${quoted}.petstore_migrations`;
  // Checked first: CREATE SCHEMA IF NOT EXISTS still needs CREATE on the database.
  const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${quoted}`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const done = await client.query<{ version: number; name: string; checksum: string }>(
    `SELECT version, name, checksum FROM ${table} ORDER BY version`,
  );
  const recorded = new Map(done.rows.map((row) => [row.version, row]));
  for (const migration of migrations) {
    const row = recorded.get(migration.version);
    if (row !== undefined && row.checksum !== migration.checksum) {
      throw new Error(
        `migration ${migration.name} was changed after it was applied to schema ${schema}`,
      );
    }
  }

  const applied: string[] = [];
  for (const migration of migrations) {
    if (recorded.has(migration.version)) continue;
    await applyOne(client, quoted, table, migration);
    applied.push(migration.name);
  }
  const versions = [...recorded.keys(), ...migrations.map((m) => m.version)];
  return { applied, version: Math.max(0, ...versions) };
}

async function applyOne(
  client: ClientBase,
  quoted: string,
  table: string,
  migration: Migration,
): Promise<void> {
  // The files name tables without a schema; this points them at ours for the transaction.
  await client.query(`SET LOCAL search_path TO ${quoted}`);
  await client.query(migration.sql);
  await client.query(`INSERT INTO ${table} (version, name, checksum) VALUES ($1, $2, $3)`, [
    migration.version,
    migration.name,
    migration.checksum,
  ]);
}
