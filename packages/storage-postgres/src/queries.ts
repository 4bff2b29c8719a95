import {
  ORDER_STATUSES,
  type Order,
  type OrderInput,
  type OrderStatus,
  PET_STATUSES,
  type Pet,
  type PetInput,
  type PetStatus,
} from '@petstore/core';
import type { StatementForms } from './prepared.js';

/**
 * SQL text for one schema. Values always travel apart from the text: inlined as literals by
 * inline-sql.ts (one simple-protocol message), or, for the statements that carry an
 * Idempotency-Key claim's scopes and key, as bind parameters (bound-query.ts), so that no scope
 * or key is ever part of a statement's text. The only thing spliced into the text here is the
 * schema name, validated and quoted by `quoteSchema`.
 */
export interface Queries {
  /** `$1` name, `$2` category, `$3` status: the new pet's id. */
  readonly insertPet: string;
  readonly selectPet: string;
  /** Keyset page: `$1` afterId, `$2` limit. */
  readonly pageOfPets: string;
  /** Keyset page of one status: `$1` afterId, `$2` status, `$3` limit. */
  readonly pageOfPetsByStatus: string;
  readonly insertOrder: string;
  /** Keyset page: `$1` afterId, `$2` limit. */
  readonly pageOfOrders: string;
  /**
   * `$1` key, `$2` the scopes (a text array): a live claim under any of them, and its pet. Sent
   * with bind parameters only (`Executor.readBound`).
   */
  readonly selectClaim: string;
  /**
   * The keyed create in one statement (see idempotent-create.ts), in two forms of one rule:
   * `$1`-`$3` as insertPet, `$4` the scope to write, `$5` key, `$6` fingerprint, `$7` retention
   * in ms, `$8` the claim's advisory lock key (decimal text), `$9` the other scopes a claim is
   * read under (a text array, most often empty). One row: `outcome` (`found`, `in_flight`,
   * `created` or `raced`), the live claim's `fingerprint` when found, and the pet when there is
   * one. Sent with bind parameters only (`Executor.writeBound`).
   */
  readonly createPetOnce: StatementForms;
  /** Deletes up to 1,000 expired claims, skipping rows another transaction holds. */
  readonly purgeExpiredClaims: string;
}

const PET_COLUMNS = 'id, name, category_id, status';
// Rendered by the server in UTC, in the form `Date#toISOString` gives, whatever the session
// TimeZone is.
const ORDER_COLUMNS = `id, pet_id, quantity,
  to_char(ship_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ship_date,
  status, complete`;

export function queriesFor(quotedSchema: string): Queries {
  const pets = `${quotedSchema}.pets`;
  const orders = `${quotedSchema}.orders`;
  const claims = `${quotedSchema}.idempotency_keys`;
  return {
    // The row holds what was sent (text is stored as it came: NUL and lone surrogates are
    // refused before): only its id comes back.
    insertPet: `INSERT INTO ${pets} (name, category_id, status) VALUES ($1, $2, $3) RETURNING id`,
    selectPet: `SELECT ${PET_COLUMNS} FROM ${pets} WHERE id = $1`,
    pageOfPets: `SELECT ${PET_COLUMNS} FROM ${pets} WHERE id > $1 ORDER BY id LIMIT $2`,
    // Row bounds rather than `status = $2 AND id > $1 ORDER BY id`: given that form, the planner
    // may walk the primary key and filter by status, which reads every row of other statuses
    // after the cursor (it does so with 100,000 rows; see test/explain.test.ts). The bounds below
    // are an index condition only on (status, id) and pin status to $2, so each page is one
    // range scan of that index starting at the cursor, whatever the statistics say.
    pageOfPetsByStatus: `SELECT ${PET_COLUMNS} FROM ${pets}
      WHERE (status, id) > ($2::text, $1::bigint)
        AND (status, id) <= ($2::text, 9223372036854775807::bigint)
      ORDER BY status, id LIMIT $3`,
    insertOrder: `INSERT INTO ${orders} (pet_id, quantity, ship_date, status, complete)
      VALUES ($1, $2, $3, $4, $5) RETURNING ${ORDER_COLUMNS}`,
    pageOfOrders: `SELECT ${ORDER_COLUMNS} FROM ${orders} WHERE id > $1 ORDER BY id LIMIT $2`,
    selectClaim: `SELECT c.fingerprint, p.id, p.name, p.category_id, p.status
      FROM ${claims} c JOIN ${pets} p ON p.id = c.pet_id
      WHERE c.key = $1 AND c.scope = ANY ($2::text[]) AND c.expires_at > now()
      LIMIT 1`,
    createPetOnce: {
      named: createPetOnceStatement(quotedSchema),
      // migrations/003_create_pet_once.sql, the same steps as `named`, each a statement of its
      // own.
      unnamed: `SELECT * FROM ${quotedSchema}.create_pet_once($1, $2, $3, $4, $5, $6, $7,
      $8::bigint, array_prepend($4::text, $9::text[]))`,
    },
    purgeExpiredClaims: `DELETE FROM ${claims} WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM ${claims} WHERE expires_at < now() LIMIT 1000 FOR UPDATE SKIP LOCKED))`,
  };
}

/**
 * The keyed create as one statement, for a connection that prepares it once (a PL/pgSQL call
 * costs PostgreSQL about a fifth more per keyed create: pgbench, prepared, 8 clients). `$8` is
 * decimal text, too wide for a JS number; the scopes to read are the one to write and `$9`, so a
 * claim's scope is sent once.
 *
 * - `held`: the claim's transaction-scoped advisory lock, tried without waiting.
 * - `found`: a live claim answers, held or not, so replays of a finished create never see
 *   `in_flight`.
 * - With the lock and no live claim: the claim with an id drawn for its pet (an expired claim is
 *   replaced, a live one never), then the pet only where the claim was written, both or neither.
 * - Else `in_flight` (no lock), or `raced`: the lock was free but a live claim was there that
 *   this statement's snapshot predates (committed by the lock's previous holder just before the
 *   lock was tried, or written by a writer that takes no lock). Nothing is written and the
 *   caller reads the claim again. The function (`unnamed`) looks the claim up in a statement
 *   after the lock, so there only a writer without the lock can cause it.
 */
function createPetOnceStatement(quotedSchema: string): string {
  return `WITH held AS MATERIALIZED (SELECT pg_try_advisory_xact_lock($8::bigint) AS ok),
found AS MATERIALIZED (
  SELECT c.fingerprint, p.id, p.name, p.category_id, p.status
  FROM ${quotedSchema}.idempotency_keys c JOIN ${quotedSchema}.pets p ON p.id = c.pet_id
  WHERE c.key = $5::text AND c.scope = ANY (array_prepend($4::text, $9::text[]))
    AND c.expires_at > now()
  LIMIT 1),
claim AS (
  INSERT INTO ${quotedSchema}.idempotency_keys AS c (scope, key, fingerprint, pet_id, expires_at)
  SELECT $4::text, $5::text, $6::text, nextval('${quotedSchema}.pets_id_seq'::regclass),
    now() + $7::bigint * interval '1 millisecond'
  FROM held WHERE held.ok AND NOT EXISTS (SELECT FROM found)
  ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
    pet_id = EXCLUDED.pet_id, created_at = now(), expires_at = EXCLUDED.expires_at
    WHERE c.expires_at <= now()
  RETURNING c.pet_id),
pet AS (
  INSERT INTO ${quotedSchema}.pets AS p (${PET_COLUMNS}) OVERRIDING SYSTEM VALUE
  SELECT claim.pet_id, $1::text, $2::bigint, $3::text FROM claim
  RETURNING ${PET_COLUMNS})
SELECT 'found' AS outcome, fingerprint, ${PET_COLUMNS} FROM found
UNION ALL SELECT 'created', NULL, ${PET_COLUMNS} FROM pet
UNION ALL SELECT CASE WHEN held.ok THEN 'raced' ELSE 'in_flight' END, NULL, NULL, NULL, NULL, NULL
  FROM held WHERE NOT EXISTS (SELECT FROM found) AND NOT EXISTS (SELECT FROM pet)`;
}

export interface PetRow {
  readonly id: number;
  readonly name: string;
  readonly category_id: number;
  readonly status: string;
}

/** A live claim and its pet. */
export interface ClaimRow extends PetRow {
  readonly fingerprint: string;
}

/** What `createPetOnce` answers: the pet it created, the live claim it found, or neither. */
export type CreateOnceRow =
  | (PetRow & { readonly outcome: 'created' })
  | (ClaimRow & { readonly outcome: 'found' })
  | { readonly outcome: 'in_flight' | 'raced' };

export interface OrderRow {
  readonly id: number;
  readonly pet_id: number;
  readonly quantity: number;
  readonly ship_date: string;
  readonly status: string;
  readonly complete: boolean;
}

const isPetStatus = (value: string): value is PetStatus =>
  (PET_STATUSES as readonly string[]).includes(value);
const isOrderStatus = (value: string): value is OrderStatus =>
  (ORDER_STATUSES as readonly string[]).includes(value);

// The table's CHECK constraints make these impossible; if one fires, the schema is not ours.
const unexpected = (what: string, value: string): Error =>
  new Error(`unexpected ${what} ${JSON.stringify(value)} in the database`);

/** A fresh object with exactly the Pet keys, in the contract's order. */
export function toPet(row: PetRow): Pet {
  if (!isPetStatus(row.status)) throw unexpected('pet status', row.status);
  return { id: row.id, name: row.name, categoryId: row.category_id, status: row.status };
}

export function toOrder(row: OrderRow): Order {
  if (!isOrderStatus(row.status)) throw unexpected('order status', row.status);
  return {
    id: row.id,
    petId: row.pet_id,
    quantity: row.quantity,
    shipDate: row.ship_date,
    status: row.status,
    complete: row.complete,
  };
}

export const petValues = (input: PetInput): unknown[] => [
  input.name,
  input.categoryId,
  input.status,
];

export const orderValues = (input: OrderInput): unknown[] => [
  input.petId,
  input.quantity,
  input.shipDate,
  input.status,
  input.complete,
];
