import { describe, expect, it } from 'vitest';
import { connect } from '../src/driver.js';
import {
  createSqliteStorage,
  MIGRATIONS,
  migrate,
  SCHEMA_VERSION,
  SqliteOpenError,
} from '../src/index.js';
import { migrateDatabase } from '../src/schema.js';
import { tempFolder } from './support/files.js';

const folder = tempFolder('migrations');
const NAMES = ['001_init', '002_idempotency_keys'];
const pet = { name: 'Rex', categoryId: 1, status: 'available' } as const;

/** What `open` throws. */
function thrown(open: () => unknown): unknown {
  try {
    open();
  } catch (error) {
    return error;
  }
  return expect.fail('expected the open to throw');
}

const recorded = (path: string) => {
  const db = connect(path);
  try {
    return {
      rows: db
        .prepare('SELECT version, name, checksum FROM petstore_migrations ORDER BY version')
        .all(),
      userVersion: db.prepare('PRAGMA user_version').get()?.user_version,
    };
  } finally {
    db.close();
  }
};

describe('migrations', () => {
  it('a new file is migrated on open, every step recorded with its checksum, user_version set', async () => {
    const path = folder.file();
    const storage = createSqliteStorage({ path });
    expect(storage.migrationsApplied).toEqual(NAMES);
    expect(storage.schemaVersion).toBe(SCHEMA_VERSION);
    await storage.close();
    expect(recorded(path)).toEqual({
      rows: MIGRATIONS.map(({ version, name, checksum }) => ({ version, name, checksum })),
      userVersion: SCHEMA_VERSION,
    });
    const again = createSqliteStorage({ path });
    expect(again.migrationsApplied).toEqual([]);
    await again.close();
  });

  it('a file at version 1 is brought to the latest, in order, keeping its rows', async () => {
    const path = folder.file();
    const db = connect(path);
    expect(migrateDatabase(db, path, MIGRATIONS.slice(0, 1))).toEqual({
      applied: ['001_init'],
      version: 1,
    });
    db.prepare("INSERT INTO pets (name, category_id, status) VALUES ('Old', 1, 'sold')").run();
    db.close();
    const storage = createSqliteStorage({ path });
    expect(storage.migrationsApplied).toEqual(['002_idempotency_keys']);
    expect(await storage.getPet(1)).toEqual({ id: 1, name: 'Old', categoryId: 1, status: 'sold' });
    expect(
      (
        await storage.createPetIdempotent(pet, {
          scope: 's',
          key: 'k',
          fingerprint: 'f',
          retentionMs: 1000,
        })
      ).kind,
    ).toBe('created');
    await storage.close();
  });

  it('the pending steps run in one transaction: a failing step leaves the file as it was', () => {
    const path = folder.file();
    const broken = [
      ...MIGRATIONS,
      {
        version: 3,
        name: '003_broken',
        sql: 'CREATE TABLE extra (x INTEGER); SELECT * FROM nowhere;',
        checksum: 'x',
      },
    ];
    const db = connect(path);
    expect(() => migrateDatabase(db, path, broken)).toThrow(/no such table: nowhere/);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all()).toEqual([]);
    expect(db.prepare('PRAGMA user_version').get()?.user_version).toBe(0);
    db.close();
  });

  it('a file migrated by a newer version is refused at open, naming both versions', async () => {
    const path = folder.file();
    await createSqliteStorage({ path }).close();
    const db = connect(path);
    db.prepare(
      "INSERT INTO petstore_migrations (version, name, checksum, applied_at) VALUES (?, '003_future', 'c', 'now')",
    ).run(SCHEMA_VERSION + 1);
    db.close();
    for (const migrateOnOpen of [true, false]) {
      const error = thrown(() => createSqliteStorage({ path, migrate: migrateOnOpen }));
      expect(error).toBeInstanceOf(SqliteOpenError);
      expect(error).toMatchObject({ problem: 'newer-version', path });
      expect((error as Error).message).toContain(
        `${path} is at schema version ${SCHEMA_VERSION + 1}, written by a newer @petstore/storage-sqlite; this version knows versions up to ${SCHEMA_VERSION}`,
      );
    }
    // Nothing was changed by the refusal.
    expect(recorded(path).rows).toHaveLength(SCHEMA_VERSION + 1);
  });

  it('a newer user_version alone (a tool that does not use the table) is refused too', async () => {
    const path = folder.file();
    await createSqliteStorage({ path }).close();
    const db = connect(path);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    expect(thrown(() => createSqliteStorage({ path }))).toMatchObject({ problem: 'newer-version' });
  });

  it('a step changed after it was applied is refused (checksums differ)', async () => {
    const path = folder.file();
    await createSqliteStorage({ path }).close();
    const db = connect(path);
    db.exec("UPDATE petstore_migrations SET checksum = 'edited' WHERE version = 1");
    db.close();
    const error = thrown(() => createSqliteStorage({ path }));
    expect(error).toMatchObject({ problem: 'changed-migration' });
    expect((error as Error).message).toMatch(/migration 001_init was changed after it was applied/);
  });

  it('migrate: false opens a migrated file, and refuses one that is not, saying how to migrate', async () => {
    const path = folder.file();
    const error = thrown(() => createSqliteStorage({ path, migrate: false }));
    expect(error).toMatchObject({ problem: 'not-migrated', path });
    expect((error as Error).message).toContain(`petstore-sqlite migrate ${path}`);
    expect(migrate({ path })).toEqual({ applied: NAMES, version: SCHEMA_VERSION });
    expect(migrate({ path })).toEqual({ applied: [], version: SCHEMA_VERSION });
    const storage = createSqliteStorage({ path, migrate: false });
    expect(storage.migrationsApplied).toEqual([]);
    expect((await storage.createPet(pet)).id).toBe(1);
    await storage.close();
  });

  it('every step only adds: no drop, rename, type change or new NOT NULL column without a default', () => {
    const BREAKING =
      /\b(DROP\s+(TABLE|COLUMN|INDEX|VIEW|TRIGGER)|RENAME\b|ALTER\s+TABLE\s+\S+\s+DROP|ADD\s+COLUMN\s+[^,;]*NOT\s+NULL(?![^,;]*DEFAULT))/i;
    for (const migration of MIGRATIONS) {
      const sql = migration.sql.replace(/--.*$/gm, '');
      expect(BREAKING.exec(sql)?.[0], migration.name).toBeUndefined();
    }
    // The rule catches what it names.
    expect(BREAKING.test('DROP TABLE pets')).toBe(true);
    expect(BREAKING.test('ALTER TABLE pets RENAME COLUMN name TO title')).toBe(true);
    expect(BREAKING.test('ALTER TABLE pets DROP COLUMN status')).toBe(true);
    expect(BREAKING.test('ALTER TABLE pets ADD COLUMN colour TEXT NOT NULL')).toBe(true);
    expect(BREAKING.test("ALTER TABLE pets ADD COLUMN colour TEXT NOT NULL DEFAULT 'brown'")).toBe(
      false,
    );
    // Versions are 1, 2, ... in order, names numbered to match.
    MIGRATIONS.forEach((migration, index) => {
      expect(migration.version).toBe(index + 1);
      expect(migration.name.startsWith(String(index + 1).padStart(3, '0'))).toBe(true);
    });
  });

  it('ids stop at 2^53 - 1: the next create rejects and stores nothing', async () => {
    const path = folder.file();
    const storage = createSqliteStorage({ path });
    await storage.createPet(pet);
    const db = connect(path);
    db.exec(`UPDATE sqlite_sequence SET seq = ${Number.MAX_SAFE_INTEGER - 1} WHERE name = 'pets'`);
    db.close();
    expect((await storage.createPet(pet)).id).toBe(Number.MAX_SAFE_INTEGER);
    await expect(storage.createPet(pet)).rejects.toThrow(/CHECK constraint failed: id BETWEEN/);
    await expect(
      storage.createPetIdempotent(pet, {
        scope: 's',
        key: 'k',
        fingerprint: 'f',
        retentionMs: 1000,
      }),
    ).rejects.toThrow(/CHECK constraint failed/);
    expect((await storage.listPets({ limit: 10 })).map((p) => p.id)).toEqual([
      1,
      Number.MAX_SAFE_INTEGER,
    ]);
    // The key stayed free with its pet refused.
    const claims = connect(path);
    expect(claims.prepare('SELECT count(*) AS n FROM idempotency_keys').get()?.n).toBe(0);
    claims.close();
    await storage.close();
  });
});
