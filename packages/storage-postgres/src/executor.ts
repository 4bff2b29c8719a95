import { StorageUnavailableError } from '@petstore/core';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { boundQuery, checkValues, statementTimeoutCall } from './bound-query.js';
import { inlineParameters, statementTimeout } from './inline-sql.js';
import { int8Types } from './int8.js';
import type { ResolvedTimeouts } from './options.js';
import { type OneQuery, pooledQuery } from './pooled-query.js';
import {
  isPreparedStatementError,
  type NamedStatements,
  type StatementForms,
  statementName,
} from './prepared.js';
import { createSessions, type Session } from './session.js';
import { isStaleConnection, toStorageError } from './unavailable.js';

// Slack on the client-side timer so that the server's own statement_timeout fires first: a
// cancelled statement is a definite rollback, whereas a client giving up leaves the outcome
// unknown. Either way the caller gets a rejection, never a success.
const GRACE_MILLIS = 1000;

// The statement timeout is never a connection startup parameter: transaction-mode poolers
// (PgBouncer, hosted poolers) refuse unknown ones. It is the session's own only on a direct
// connection of the storage's own pool (see session.ts); anywhere else it travels with the work,
// `SET LOCAL` (or set_config(…, true)) in each transaction: a pooler hands each transaction
// whichever server connection is free, so a session setting would land on someone else's
// transaction, and a host's pool serves the host's own work too.

// A server restart leaves every idle pooled connection dead at once; each one the pool hands
// out before its error event has been processed costs one attempt.
const STALE_RETRIES = 3;

/** Reads and writes, each under the server's statement timeout, with error mapping. */
export interface Executor {
  /**
   * A statement that changes nothing, in one round trip: named (prepared once per connection)
   * with its values bound, or sent with its timeout as one simple-protocol message (parameters
   * inlined, see inline-sql.ts). When the pool hands out a connection the server has already
   * ended, it runs again on another one (within the same time bound).
   */
  read<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
  /**
   * One writing statement, the same way: the message is one implicit transaction, committed
   * before the answer comes back, so it resolves only with committed rows. Writes never retry
   * on a connection that failed: whether a write that failed mid-flight committed is unknown.
   */
  write<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
  /**
   * `read` with `values` as bind parameters, never in the statement's text (see bound-query.ts):
   * for statements that carry an Idempotency-Key claim's scopes or key. One round trip too.
   */
  readBound<Row extends QueryResultRow>(text: string, values: unknown[]): Promise<Row[]>;
  /**
   * `write` with `values` as bind parameters, never in the statement's text; given two forms,
   * the one for the way it is sent (see StatementForms).
   */
  writeBound<Row extends QueryResultRow>(
    text: string | StatementForms,
    values: unknown[],
  ): Promise<Row[]>;
  /**
   * `read` with `before` (statements of ours, no parameters) run ahead of it in the same message
   * and implicit transaction, never named: the rows of each of them, and the read's.
   */
  readAfter<Row extends QueryResultRow>(
    before: readonly string[],
    text: string,
    values: unknown[],
  ): Promise<{ before: QueryResultRow[][]; rows: Row[] }>;
}

/** How statements are sent on a pool, and who hears that the pool could not keep them named. */
export interface StatementOptions {
  readonly namedStatements: NamedStatements;
  /** The pool is the storage's own (its sessions may keep the statement timeout). */
  readonly ownPool: boolean;
  /** Told once, when the pool falls back to unnamed statements. */
  readonly onWarning: (message: string) => void;
}

interface Attempt {
  named: boolean;
}

interface How {
  readonly retryStale: boolean;
  readonly bound: boolean;
  readonly before?: readonly string[];
}

export function createExecutor(
  pool: Pool,
  timeouts: ResolvedTimeouts,
  isClosed: () => boolean,
  statements: StatementOptions,
  /** Slack after the server's own timeout (see GRACE_MILLIS); 0 for a replica's reads. */
  graceMillis = GRACE_MILLIS,
): Executor {
  const { connectionTimeoutMillis, queryTimeoutMillis, retryAfterSeconds } = timeouts;
  const unavailable = (message: string, reason: string): StorageUnavailableError =>
    new StorageUnavailableError(message, { retryAfterSeconds, reason });
  const ensureOpen = (): void => {
    if (isClosed()) throw unavailable('storage is closed', 'closed');
  };
  const tooLate = (): Error => unavailable('PostgreSQL did not answer in time', 'timeout');

  const timeoutSql = statementTimeout(queryTimeoutMillis);
  const timeoutCall = statementTimeoutCall(queryTimeoutMillis);
  const timeoutStatement = { text: timeoutCall, name: statementName(timeoutCall) };

  // Set for good once a connection of this pool could not keep a prepared statement.
  let unnamed = statements.namedStatements === 'off';
  const named = (direct: boolean): boolean =>
    !unnamed && (statements.namedStatements === 'on' || direct);
  const fallBack = (error: unknown): void => {
    if (unnamed) return;
    unnamed = true;
    const code = String(Reflect.get(error as object, 'code'));
    try {
      statements.onWarning(
        `PostgreSQL: a connection of this pool cannot keep prepared statements (${code}: ` +
          `${(error as Error).message}), as behind a transaction-mode pooler; this pool sends ` +
          'unnamed statements from now on (namedStatements: "off" says so from the start)',
      );
    } catch {
      // A logger's failure is not the request's.
    }
  };
  const sessions = createSessions({
    ownPool: statements.ownPool,
    timeoutMillis: queryTimeoutMillis,
    checkDirect: statements.ownPool || statements.namedStatements === 'auto',
    named,
    timeoutStatement,
  });

  /** The statement as this connection's session takes it; `attempt` notes if it was named. */
  function queryFor(
    session: Session,
    statement: string | StatementForms,
    values: unknown[],
    how: How,
    attempt: Attempt,
  ): OneQuery {
    const before = how.before ?? [];
    const prepared = session.timeoutSet || session.timeoutPrepared;
    const sentNamed = before.length === 0 && prepared && named(session.direct);
    attempt.named ||= sentNamed;
    const text =
      typeof statement === 'string' ? statement : statement[sentNamed ? 'named' : 'unnamed'];
    if (sentNamed) {
      const timeout = session.timeoutSet ? undefined : { name: timeoutStatement.name };
      return boundQuery(timeout, { text, values, name: statementName(text) });
    }
    if (how.bound) {
      return boundQuery(session.timeoutSet ? undefined : { text: timeoutCall }, { text, values });
    }
    // Several statements in one message run as one implicit transaction, so a timeout set by
    // the first covers the rest (the server arms its timer afresh for each statement).
    const sql = [...(session.timeoutSet ? [] : [timeoutSql]), ...before];
    return { text: [...sql, inlineParameters(text, values)].join('; '), types: int8Types };
  }

  async function runAll(
    text: string | StatementForms,
    values: unknown[],
    how: How,
  ): Promise<QueryResultRow[][]> {
    ensureOpen();
    // Text PostgreSQL would not keep unchanged is refused before anything is sent.
    checkValues(values);
    // The checkout, then the statement under the server's timeout, then the slack: the bound
    // holds even for a host pool configured without any timeouts.
    const bound = connectionTimeoutMillis + queryTimeoutMillis + graceMillis;
    const deadline = performance.now() + bound;
    let staleRetries = 0;
    let preparedRetries = 0;
    for (;;) {
      // Named: this attempt sent a named statement, or set a connection up (which may prepare one).
      const attempt: Attempt = { named: false };
      const build = (client: PoolClient): OneQuery | Promise<OneQuery> => {
        const session = sessions.of(client);
        if (!(session instanceof Promise)) return queryFor(session, text, values, how, attempt);
        attempt.named = true;
        return session.then((known) => queryFor(known, text, values, how, attempt));
      };
      try {
        // The first attempt has the whole bound: one duration for every call (see pooledQuery).
        const left = staleRetries + preparedRetries === 0 ? bound : deadline - performance.now();
        const results = await pooledQuery<QueryResultRow>(pool, build, left, tooLate);
        return results.map((result) => result.rows);
      } catch (error) {
        // A connection that could not keep a prepared statement of ours: the statement never
        // ran (see isPreparedStatementError), so the pool falls back to unnamed statements and
        // it is sent again, writes included (twice at most: a call in flight may meet a second
        // such connection before it sees the fall-back).
        const prepared = attempt.named && isPreparedStatementError(error);
        if (prepared) fallBack(error);
        const again = prepared
          ? preparedRetries++ < 2
          : how.retryStale && staleRetries++ < STALE_RETRIES && isStaleConnection(error);
        if (!again || isClosed() || performance.now() >= deadline) {
          throw toStorageError(error, retryAfterSeconds);
        }
      }
    }
  }

  const run = async <Row extends QueryResultRow>(
    text: string | StatementForms,
    values: unknown[],
    how: How,
  ): Promise<Row[]> => ((await runAll(text, values, how)).at(-1) ?? []) as Row[];

  return {
    read: (text, values) => run(text, values, { retryStale: true, bound: false }),
    write: (text, values) => run(text, values, { retryStale: false, bound: false }),
    readBound: (text, values) => run(text, values, { retryStale: true, bound: true }),
    writeBound: (text, values) => run(text, values, { retryStale: false, bound: true }),
    async readAfter<Row extends QueryResultRow>(
      before: readonly string[],
      text: string,
      values: unknown[],
    ) {
      const results = await runAll(text, values, { retryStale: true, bound: false, before });
      return {
        // Whether the statement timeout's SET came first or not, `before` precede the read.
        before: results.slice(-1 - before.length, -1),
        rows: (results.at(-1) ?? []) as Row[],
      };
    },
  };
}
