import { createHash } from 'node:crypto';

/**
 * Whether the storage names its statements, so that PostgreSQL parses and plans each one once per
 * connection rather than on every call:
 * - `auto`: on connections that reach PostgreSQL directly (the session's backend is the one the
 *   server named when the connection opened), not through a pooler;
 * - `on`: on every connection, for a pooler that keeps prepared statements (PgBouncer 1.21 and
 *   later with `max_prepared_statements`);
 * - `off`: never.
 * Whatever the setting, a pool whose connections turn out unable to keep them (a transaction-mode
 * pooler that moves a client between server connections) falls back to unnamed statements.
 */
export type NamedStatements = 'auto' | 'on' | 'off';

const MODES: readonly string[] = ['auto', 'on', 'off'] satisfies NamedStatements[];

export function resolveNamedStatements(value: NamedStatements | undefined): NamedStatements {
  if (value === undefined) return 'auto';
  if (!MODES.includes(value)) {
    throw new TypeError(`namedStatements must be auto, on or off, got ${String(value)}`);
  }
  return value;
}

/**
 * One statement in the form each way of sending it runs cheapest. `named` is prepared once per
 * connection, so PostgreSQL parses and plans it once however long it is; `unnamed` is parsed
 * and planned on every call, so it is kept short (a call of a function whose plans the server
 * caches). Both answer the same rows for the same values.
 */
export interface StatementForms {
  readonly named: string;
  readonly unnamed: string;
}

// The package's statements are a handful of fixed texts per schema: each is hashed once.
const names = new Map<string, string>();
const MAX_NAMES = 256;

/**
 * A statement's name: a digest of its whole text (the schema's name included), so one name
 * always means one text, on any server connection of any client, and two schemas sharing a pool
 * never share a name. 96 bits of it: no two of a few hundred texts meet, and every Bind carries
 * the name, so it is kept short.
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `petstore_${createHash('sha256').update(text).digest('base64url').slice(0, 16)}`;
    if (names.size < MAX_NAMES) names.set(text, name);
  }
  return name;
}

/**
 * The errors of a server connection that does not keep this client's prepared statements:
 * 26000 (invalid_sql_statement_name: a Bind of a statement this server connection never
 * prepared) and 42P05 (duplicate_prepared_statement: a Parse of a name another client prepared
 * on it). Both are raised by Parse or Bind, before the statement they name runs; PostgreSQL
 * skips the rest of the message up to its Sync and rolls back its implicit transaction. The
 * storage's statement is always the last of its message, so it never ran: the call can be sent
 * again, writes included.
 */
export function isPreparedStatementError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code: unknown = Reflect.get(error, 'code');
  return code === '26000' || code === '42P05';
}
