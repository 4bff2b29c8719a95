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

const unstorable = (item: unknown): boolean =>
  typeof item === 'string' && (item.includes('\u0000') || !item.isWellFormed());

/**
 * Text PostgreSQL could not store unchanged (NUL, a lone surrogate), alone or in an array, is
 * refused, as inline-sql does. On every call: a plain loop, nothing allocated.
 */
export function checkValues(values: readonly unknown[]): void {
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (unstorable(value) || (Array.isArray(value) && value.some(unstorable))) {
      throw new TypeError(`parameter $${index + 1} holds NUL or a lone surrogate`);
    }
  }
}

/**
 * The statement that sets the timeout for one transaction, ahead of the work in the same
 * message: its text, parsed with the message (unnamed), or the name it was prepared under on
 * this connection (see session.ts).
 */
export type TimeoutStatement = { readonly text: string } | { readonly name: string };

/** A statement with its values as bind parameters: named (prepared once per connection) or not. */
export interface BoundStatement {
  readonly text: string;
  readonly values: unknown[];
  /** Its name, when it is prepared once per connection; pg sends its Parse the first time only. */
  readonly name?: string | undefined;
}

/** What every call of one named statement sends the same: its text, name, type parsers and mode. */
interface StatementShape extends Pick<pg.QueryConfig, 'text' | 'name' | 'types'> {
  /** pg's own field (not in its types): `extended` sends Parse/Bind/Execute even for no values. */
  readonly queryMode: 'extended';
}

// One shape per name: a name is a digest of its text (statementName), and the package's named
// statements are a handful of fixed texts per schema. Past the bound, plain objects.
const shapes = new Map<string, StatementShape>();
const MAX_SHAPES = 512;

/**
 * The config pg is given for a statement. pg copies every config, property by property and
 * keeping its prototype (`cloneQueryConfig`, a slow path of V8's), then reads each field by
 * name. A named statement's config has one own property, `values`, and the rest on a prototype
 * made once per statement: one property copies in 0.9 µs where five took 2.3 (node 24, this
 * machine). An unnamed one keeps all its own: a tracer that rewrites an unnamed statement's text
 * copies own properties only (OpenTelemetry's `addSqlCommenterCommentToQueries`), and a copy
 * without `types` would read ids as strings. Named statements it leaves as they are.
 */
function statementConfig(
  text: string,
  name: string | undefined,
  values: unknown[],
): pg.QueryConfig<unknown[]> {
  // The extended protocol whatever the values (pg would send a simple query for none).
  if (name === undefined) {
    const config: StatementShape & pg.QueryConfig<unknown[]> = {
      text,
      values,
      types: int8Types,
      queryMode: 'extended',
    };
    return config;
  }
  let shape = shapes.get(name);
  if (shape === undefined) {
    shape = { text, name, types: int8Types, queryMode: 'extended' };
    if (shapes.size >= MAX_SHAPES) return { ...shape, values };
    shapes.set(name, shape);
  }
  const config = Object.create(shape) as pg.QueryConfig<unknown[]>;
  config.values = values;
  return config;
}

/**
 * A statement whose values travel as bind parameters, never in its text: the text is what
 * `pg_stat_activity`, a statement log and a tracing span's `db.query.text` show, and an
 * Idempotency-Key claim's scope there would leave the process. One message, one round trip and
 * one implicit transaction: with `timeout`, Bind and Execute (after its Parse, unnamed) of the
 * statement that sets the timeout, then (Parse,) Bind and Execute of the statement, then one
 * Sync. The server arms each statement's timer as it starts it, so the statement runs under the
 * timeout set just before, which lasts until the Sync ends the transaction. pg answers with one
 * result per statement, as for a multi-statement simple query.
 *
 * Without `timeout` (the session keeps the timeout) it is pg's own extended query. A `pg.Query`
 * serves one call: make a new one for each attempt.
 */
export function boundQuery(
  timeout: TimeoutStatement | undefined,
  statement: BoundStatement,
): pg.QueryConfig<unknown[]> | pg.Query {
  const { text, values, name } = statement;
  // pg counts any ParseComplete as the named statement's own: one for an unnamed timeout ahead
  // of it would make pg think it parsed, and never parse it.
  if (timeout !== undefined && 'text' in timeout && name !== undefined) {
    throw new TypeError('a named statement goes with a prepared timeout statement only');
  }
  const config = statementConfig(text, name, values);
  if (timeout === undefined) return config;
  const query = new pg.Query(config);
  const submitStatement = query.submit.bind(query);
  query.submit = (connection: Connection) => {
    // Corked, so every message goes out in one write (pg corks its own part too), where the
    // runtime's socket can (pg checks for it the same way).
    const { stream } = connection;
    stream.cork?.();
    try {
      // A prepared one (session.ts prepared it on this connection) needs no Parse.
      if ('text' in timeout) connection.parse({ text: timeout.text, name: '', types: [] }, true);
      connection.bind({ statement: 'name' in timeout ? timeout.name : '' }, true);
      connection.describe({ type: 'P' }, true);
      connection.execute({}, true);
      return submitStatement(connection);
    } finally {
      stream.uncork?.();
    }
  };
  return query;
}
