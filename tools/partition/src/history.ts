// A run's history: every operation a client made, recorded when it was invoked and when it
// completed, with what it got. Times are seconds since the run's start (one clock, the driver's).

/** How an operation ended, as its client knows it. */
export type Outcome =
  /** Acknowledged: a 201 (a create) or a 200 page. */
  | 'ok'
  /** Known not to have taken effect: a final answer that stores nothing (4xx), or never sent. */
  | 'failed'
  /** May or may not have taken effect: `outcome_unknown` (the client gave up without knowing). */
  | 'unknown';

interface Op {
  /** Who made it: a worker (`create-3`), a walker (`walk-1`), a probe (`probe-app2`). */
  readonly process: string;
  readonly invokedAt: number;
  /** Unset until it completes. */
  completedAt?: number;
  outcome?: Outcome;
  /** For a failure or an unknown outcome: the error's code and status (`outcome_unknown 503`). */
  answer?: string;
}

/** `POST /pets` with an Idempotency-Key, its name unique in the run. */
export interface CreateOp extends Op {
  readonly kind: 'create';
  readonly name: string;
  readonly key: string;
  /** The acknowledged pet's id. */
  id?: number;
}

/** One page of a walk over `GET /pets` (keyset pages, ascending ids). */
export interface PageOp extends Op {
  readonly kind: 'page';
  /** The walk it belongs to, unique in the run, and its place in it (0 first). */
  readonly walk: number;
  readonly index: number;
  /** The page holds ids above this one: the last id of the page before (0 for the first). */
  readonly afterId: number;
  /** What it listed, in order. */
  ids?: number[];
  /** No next page: the walk's end. */
  last?: boolean;
}

export type HistoryOp = CreateOp | PageOp;

/** A pet as the database holds it after the run, with the Idempotency-Key it was stored under. */
export interface StoredPet {
  readonly id: number;
  readonly name: string;
  readonly key: string | undefined;
}

/** The history as JSON lines: an `invoke` line per operation, then its completion's line. */
export function historyLines(ops: readonly HistoryOp[]): string[] {
  const events: { at: number; line: string }[] = [];
  for (const [n, op] of ops.entries()) {
    const { completedAt, outcome, answer, ...invoked } = op;
    const invocation = { ...invoked } as Record<string, unknown>;
    delete invocation.id;
    delete invocation.ids;
    delete invocation.last;
    events.push({
      at: op.invokedAt,
      line: JSON.stringify({ op: n, type: 'invoke', ...invocation }),
    });
    if (completedAt !== undefined) {
      const result = op.kind === 'create' ? { id: op.id } : { ids: op.ids, last: op.last };
      events.push({
        at: completedAt,
        line: JSON.stringify({ op: n, type: outcome, at: completedAt, answer, ...result }),
      });
    }
  }
  return events.sort((a, b) => a.at - b.at).map((event) => event.line);
}
