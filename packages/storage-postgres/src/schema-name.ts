/** Schema used when none is given, by both `migrate()` and `createPostgresStorage()`. */
export const DEFAULT_SCHEMA = 'petstore';

// A plain identifier only: no quoting games, and short enough that PostgreSQL keeps it whole
// (NAMEDATALEN - 1 = 63 bytes). `pg_` names are reserved for system schemas.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Validates a schema name and returns it double-quoted for SQL text. Identifiers cannot be
 * bind parameters, so this check is what keeps them out of injection's way.
 */
export function quoteSchema(schema: string): string {
  if (!IDENTIFIER.test(schema) || schema.toLowerCase().startsWith('pg_')) {
    throw new TypeError(
      `schema must be 1 to 63 letters, digits or underscores, not starting with a digit or "pg_"; got ${JSON.stringify(schema)}`,
    );
  }
  return `"${schema}"`;
}
