import type { Pool, PoolClient } from 'pg';

/** A pooled connection held for one piece of work, with its `error` listener in place. */
export interface Lease {
  readonly client: PoolClient;
  /** Gives the connection back; with an error, the pool closes it instead. Safe to call twice. */
  readonly release: (error?: Error) => void;
}

const ignore = (): void => undefined;
/** Connections that already have our `error` listener: it stays for the connection's life. */
const heard = new WeakSet<PoolClient>();

/**
 * A connection just handed out by pg-pool's `connect` callback, heard from while it is held:
 * `error` listened for (see lease), `done` called once, with an error closing it. The listener
 * goes on at the first hand-out and stays (an idle connection's error still reaches the pool's
 * own listener, which pg-pool attaches besides), rather than on and off for every query.
 */
export function hold(client: PoolClient, done: (failure?: Error) => void): Lease {
  if (!heard.has(client)) {
    client.on('error', ignore);
    heard.add(client);
  }
  let released = false;
  // No accessor in this literal: V8 allocates a literal with a getter straight in old space, and
  // from there the lease kept `done`, and through it the whole request, alive past young
  // collections until a full one (keyed creates on 16 connections promoted 9 times as much as
  // the pg peer; test/lease.test.ts).
  return {
    client,
    release: (failure?: Error): void => {
      if (released) return;
      released = true;
      done(failure);
    },
  };
}

/**
 * `pool.connect()` that never leaves a connection without an `error` listener.
 *
 * pg-pool takes its own listener off a connection as it hands it out. A connection that dies
 * while held emits `error`, and an unheard `error` crashes the process. The promise form of
 * `connect()` resolves a microtask later, while the socket may already hold more messages
 * (ReadyForQuery, then a FATAL from `pg_terminate_backend` or a shutdown, read in one chunk),
 * which pg dispatches at once. The callback form runs inside the hand-out, so the listener is
 * attached before pg can dispatch anything else. The same failure reaches the next query, which
 * is what callers report.
 *
 * With `millis`, a connection that arrives later goes straight back and the lease rejects.
 */
export function lease(pool: Pool, millis?: number): Promise<Lease> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer =
      millis === undefined
        ? undefined
        : setTimeout(() => {
            settled = true;
            reject(new Error('timeout exceeded when trying to connect'));
          }, millis);
    timer?.unref();
    pool.connect((error, client, done) => {
      clearTimeout(timer);
      if (error || client === undefined) {
        if (!settled) reject(error ?? new Error('the pool gave no connection'));
        settled = true;
        return;
      }
      const held = hold(client, done);
      if (settled) held.release();
      else resolve(held);
      settled = true;
    });
  });
}
