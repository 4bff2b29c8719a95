import pg, { type Connection } from 'pg';
import { int8Types } from './int8.js';

/**
 * `SELECT set_config('statement_timeout', '<millis>', true)`: `SET LOCAL statement_timeout` as a
 * function call, for a timeout already checked to be a positive integer. In the extended
 * protocol a SET LOCAL ahead of the first statement draws a warning (it is not yet in a
 * transaction block) into the server's log on every call; `set_config(…, true)` does the same
 * without one.
 */
export const statementTimeoutCall = (millis: number): string => {
  if (!Number.isSafeInteger(millis) || millis < 1) throw new TypeError(`bad timeout ${millis}`);
  return `SELECT set_config('statement_timeout', '${millis}', true)`;
};

/** Text PostgreSQL could not store unchanged (NUL, a lone surrogate) is refused, as inline-sql does. */
function checkValues(values: readonly unknown[]): void {
  values.forEach((value, index) => {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' && (item.includes('\u0000') || !item.isWellFormed())) {
        throw new TypeError(`parameter $${index + 1} holds NUL or a lone surrogate`);
      }
    }
  });
}

/**
 * A statement whose values travel as bind parameters, never in its text, for the statements that
 * carry an Idempotency-Key claim's scopes and key: the text is what `pg_stat_activity`, a
 * statement log and a tracing span's `db.query.text` show, and a scope there would leave the
 * process. Still one message, one round trip and one implicit transaction: Parse, Bind and
 * Execute of `timeoutCall` (see `statementTimeoutCall`), then of `text` with `values`, then one
 * Sync. The server arms each statement's timer as it starts it, so `text` runs under the
 * timeout set just before, which lasts until the Sync ends the transaction. pg answers with one
 * result per statement, as for a multi-statement simple query.
 *
 * A `pg.Query` serves one call: make a new one for each attempt.
 */
export function boundQuery(timeoutCall: string, text: string, values: unknown[]): pg.Query {
  checkValues(values);
  // The extended protocol whatever the values (pg would send a simple query for none).
  const config = { text, values, types: int8Types, queryMode: 'extended' };
  const query = new pg.Query(config);
  const submitStatement = query.submit.bind(query);
  query.submit = (connection: Connection) => {
    // Corked, so every message goes out in one write (pg corks its own part too), where the
    // runtime's socket can (pg checks for it the same way).
    const { stream } = connection;
    stream.cork?.();
    try {
      connection.parse({ text: timeoutCall, name: '', types: [] }, true);
      connection.bind({}, true);
      connection.describe({ type: 'P' }, true);
      connection.execute({}, true);
      return submitStatement(connection);
    } finally {
      stream.uncork?.();
    }
  };
  return query;
}
