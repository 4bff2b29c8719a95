import type { PoolClient } from 'pg';

/** What the storage knows of one pooled connection, learnt on its first use. */
export interface Session {
  /**
   * No pooler between: the session's backend is the one the server named in its key data when
   * the connection opened (a pooler answers with a key of its own, and may hand each transaction
   * another server connection).
   */
  readonly direct: boolean;
  /**
   * The session's own `statement_timeout` is the storage's (a direct connection of the storage's
   * own pool): no statement sets it per transaction.
   */
  readonly timeoutSet: boolean;
  /** The statement that sets the timeout per transaction is prepared on it, by name. */
  readonly timeoutPrepared: boolean;
}

export interface SessionOptions {
  /**
   * The pool is the storage's own, so its sessions may keep a `statement_timeout`. A host's pool
   * never gets one: the host's other work on those connections would inherit it.
   */
  readonly ownPool: boolean;
  readonly timeoutMillis: number;
  /** Whether to ask if a connection is direct (not needed when nothing depends on it). */
  readonly checkDirect: boolean;
  /** Whether statements are named on a connection, direct or not (false once a pool fell back). */
  readonly named: (direct: boolean) => boolean;
  /** The statement that sets the timeout for one transaction, and its name. */
  readonly timeoutStatement: { readonly text: string; readonly name: string };
}

const UNKNOWN: Session = { direct: false, timeoutSet: false, timeoutPrepared: false };

/** The backend's pid pg read from the server's BackendKeyData; undefined when it has none. */
function startupPid(client: PoolClient): number | undefined {
  const pid: unknown = Reflect.get(client, 'processID');
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * The session of each connection, set up once on its first use (one round trip, two when the
 * per-transaction timeout statement is prepared too), then known: `of(client)` answers at once
 * with no promise, so the request path waits on nothing more.
 *
 * The setup asks whether the session's backend is the one the connection opened with; on a
 * connection of the storage's own pool that is, it sets the session's `statement_timeout` in the
 * same statement, so that a pooler's server connection (a different backend) is never given one:
 * there it would outlive the transaction and reach other clients. On a connection that names its
 * statements but keeps no session timeout, it prepares the statement that sets the timeout per
 * transaction.
 */
export function createSessions(options: SessionOptions) {
  const known = new WeakMap<PoolClient, Session>();

  async function setUp(client: PoolClient): Promise<Session> {
    const pid = startupPid(client);
    let session = UNKNOWN;
    if (options.checkDirect && pid !== undefined) {
      // The pid is a positive integer from the wire and the timeout a checked one: no quoting.
      const same = `pg_backend_pid() = ${pid}`;
      const setTimeout = options.ownPool
        ? `, CASE WHEN ${same} THEN set_config('statement_timeout', '${options.timeoutMillis}', false) END AS timeout`
        : '';
      const { rows } = await client.query<{ direct: boolean }>(
        `SELECT ${same} AS direct${setTimeout}`,
      );
      const direct = rows[0]?.direct === true;
      session = { direct, timeoutSet: direct && options.ownPool, timeoutPrepared: false };
    }
    if (!session.timeoutSet && options.named(session.direct)) {
      // Running it prepares it (and sets the timeout of its own implicit transaction, which ends
      // with it); pg then knows the name is parsed on this connection.
      await client.query({
        name: options.timeoutStatement.name,
        text: options.timeoutStatement.text,
      });
      session = { ...session, timeoutPrepared: true };
    }
    known.set(client, session);
    return session;
  }

  return {
    /** The connection's session: at once when known, else after its setup. */
    of(client: PoolClient): Session | Promise<Session> {
      return known.get(client) ?? setUp(client);
    },
  };
}
