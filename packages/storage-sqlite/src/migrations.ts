import { createHash } from 'node:crypto';

/** One versioned step of the schema. */
export interface Migration {
  /** 1, 2, ...: applied in this order, each once. */
  readonly version: number;
  /** `001_init`. */
  readonly name: string;
  readonly sql: string;
  /** sha256 of `sql`, recorded when applied, so a step changed after release is noticed. */
  readonly checksum: string;
}

/*
 * The schema, as versioned statements shipped inside the package (the file is embedded, so
 * there is no folder of SQL files to find at run time). Expand only: a later step may add
 * tables, columns with defaults and indexes, never drop, rename or retype (test/migrations.test.ts
 * holds every step to it), so a file migrated by a newer release still serves an older one
 * during a rolling deploy; an older release refuses a file whose recorded version it does not
 * know, rather than guess.
 *
 * STRICT tables: a value of the wrong type is refused, never stored converted. Ids stay within
 * JavaScript's safe-integer range by a CHECK, so an id a client would round is never handed out.
 */
const STEPS: readonly (readonly [name: string, sql: string])[] = [
  [
    '001_init',
    `CREATE TABLE pets (
  id          INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id BETWEEN 1 AND 9007199254740991),
  name        TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 256),
  category_id INTEGER NOT NULL CHECK (category_id BETWEEN 1 AND 9007199254740991),
  status      TEXT    NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
) STRICT;

-- Keyset pages by status: WHERE status = ? AND id > ? ORDER BY id LIMIT ?, one range of this
-- index. Unfiltered pages range over the table itself: id is the rowid, SQLite's own (id) index.
CREATE INDEX pets_status_id ON pets (status, id);

CREATE TABLE orders (
  id        INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id BETWEEN 1 AND 9007199254740991),
  -- No foreign key: the port lets a host record an order for any pet id, as every storage does.
  pet_id    INTEGER NOT NULL CHECK (pet_id BETWEEN 1 AND 9007199254740991),
  quantity  INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 9007199254740991),
  ship_date TEXT    NOT NULL,
  status    TEXT    NOT NULL CHECK (status IN ('placed', 'approved', 'delivered')),
  complete  INTEGER NOT NULL CHECK (complete IN (0, 1))
) STRICT;`,
  ],
  [
    '002_idempotency_keys',
    `-- Idempotency-Key claims, written in the same transaction as their pet: neither without the other.
CREATE TABLE idempotency_keys (
  scope       TEXT    NOT NULL,
  key         TEXT    NOT NULL,
  fingerprint TEXT    NOT NULL,
  pet_id      INTEGER NOT NULL REFERENCES pets (id),
  -- Milliseconds since 1970, from the storage's clock.
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) STRICT;

-- Expired claims are purged a batch at a time, oldest first, off the request path.
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);`,
  ],
];

/** Every migration this version knows, in version order. */
export const MIGRATIONS: readonly Migration[] = STEPS.map(([name, sql], index) => ({
  version: index + 1,
  name,
  sql,
  checksum: createHash('sha256').update(sql).digest('hex'),
}));

/** The schema version this version of the package reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
