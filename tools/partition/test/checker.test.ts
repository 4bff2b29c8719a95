import { describe, expect, it } from 'vitest';
import {
  ANOMALY_KINDS,
  checkHistory,
  VIOLATION_KINDS,
  type ViolationKind,
} from '../src/checker.js';
import type { CreateOp, HistoryOp, PageOp, StoredPet } from '../src/history.js';

// The checker against a small history that holds, then against copies of it with one violation
// of each kind planted: each must be found, and named as what it is.

const create = (
  name: string,
  invokedAt: number,
  completedAt: number,
  outcome: NonNullable<CreateOp['outcome']>,
  id?: number,
): CreateOp => ({
  kind: 'create',
  process: 'create-0',
  name,
  key: `key-${name}`,
  invokedAt,
  completedAt,
  outcome,
  ...(id === undefined ? {} : { id }),
  ...(outcome === 'ok'
    ? {}
    : { answer: outcome === 'failed' ? 'unauthorized 401' : 'outcome_unknown 503' }),
});

const page = (
  walk: number,
  index: number,
  afterId: number,
  invokedAt: number,
  ids: number[],
  last: boolean,
): PageOp => ({
  kind: 'page',
  process: 'walk-0',
  walk,
  index,
  afterId,
  invokedAt,
  completedAt: invokedAt + 0.1,
  outcome: 'ok',
  ids,
  last,
});

/** Five acknowledged creates (ids 1-5), one failed, one unknown stored (id 6), one unknown not. */
function valid(): { ops: HistoryOp[]; stored: StoredPet[] } {
  const ops: HistoryOp[] = [
    create('a', 0, 1, 'ok', 1),
    create('b', 1, 2, 'ok', 2),
    create('c', 2, 3, 'ok', 3),
    create('failed', 3, 4, 'failed'),
    create('d', 4, 5, 'ok', 4),
    create('maybe', 4, 9, 'unknown'),
    create('e', 5, 6, 'ok', 5),
    create('never', 6, 9, 'unknown'),
    // A walk of pages of three, after every acknowledged create: it shows 1-5 and 6.
    page(1, 0, 0, 7, [1, 2, 3], false),
    page(1, 1, 3, 7.5, [4, 5, 6], true),
    // A walk during the creates: its first page before d and e were acknowledged.
    page(2, 0, 0, 3.5, [1, 2, 3], false),
    page(2, 1, 3, 4.5, [], true),
  ];
  const stored = [
    ...['a', 'b', 'c', 'd', 'e'].map((name, n) => ({ id: n + 1, name, key: `key-${name}` })),
    { id: 6, name: 'maybe', key: 'key-maybe' },
  ];
  return { ops, stored };
}

function onlyViolation(ops: HistoryOp[], stored: StoredPet[], kind: ViolationKind): void {
  const verdict = checkHistory(ops, stored);
  expect(verdict.valid).toBe(false);
  expect(verdict.counts[kind]).toBeGreaterThan(0);
  expect(verdict.examples[kind].length).toBeGreaterThan(0);
  for (const other of VIOLATION_KINDS) {
    if (other !== kind) expect(verdict.counts[other], `${other} for a planted ${kind}`).toBe(0);
  }
}

describe('the history checker', () => {
  it('passes a history that holds, and counts its outcomes', () => {
    const { ops, stored } = valid();
    const verdict = checkHistory(ops, stored);
    expect(verdict.examples).toEqual(
      Object.fromEntries([...VIOLATION_KINDS, ...ANOMALY_KINDS].map((k) => [k, []])),
    );
    expect(verdict.valid).toBe(true);
    expect(verdict.creates).toEqual({ ok: 5, failed: 1, unknown: 2, unknownStored: 1 });
    expect(verdict.pages).toMatchObject({ ok: 4, walks: 2, completeWalks: 2 });
  });

  it('finds an acknowledged create that is not stored (lost)', () => {
    const { ops, stored } = valid();
    // Without the pages: they list c, and a listed pet that is not stored is a phantom as well.
    const creates = ops.filter((op) => op.kind === 'create');
    onlyViolation(
      creates,
      stored.filter((pet) => pet.name !== 'c'),
      'lost',
    );
  });

  it('finds an acknowledged create stored twice (doubled)', () => {
    const { ops, stored } = valid();
    onlyViolation(ops, [...stored, { id: 7, name: 'e', key: 'key-e' }], 'doubled');
  });

  it('finds an acknowledged create stored as another pet or under another key (mismatched)', () => {
    const { ops, stored } = valid();
    const otherKey = stored.map((pet) => (pet.name === 'b' ? { ...pet, key: 'key-x' } : pet));
    onlyViolation(ops, otherKey, 'mismatched');
  });

  it('finds a create that failed for good and was stored (failed_stored)', () => {
    const { ops, stored } = valid();
    onlyViolation(ops, [...stored, { id: 7, name: 'failed', key: 'key-failed' }], 'failed_stored');
  });

  it('finds a create of unknown outcome stored twice (unknown_doubled)', () => {
    const { ops, stored } = valid();
    onlyViolation(ops, [...stored, { id: 7, name: 'maybe', key: 'key-maybe' }], 'unknown_doubled');
  });

  it('finds a stored pet no create asked for (unexpected)', () => {
    const { ops, stored } = valid();
    onlyViolation(ops, [...stored, { id: 7, name: 'ghost', key: undefined }], 'unexpected');
  });

  it('finds a walk that leaves out an id acknowledged before it began (skipped)', () => {
    const { ops, stored } = valid();
    // Walk 1 began at 7 s, after e (id 5) was acknowledged at 6 s: its last page without it.
    const planted = ops.map((op) =>
      op.kind === 'page' && op.walk === 1 && op.index === 1 ? { ...op, ids: [4, 6] } : op,
    );
    onlyViolation(planted, stored, 'skipped');
  });

  it('finds a page read after a create was acknowledged that does not show it (ryw_miss)', () => {
    const { ops, stored } = valid();
    // Walk 2 began at 3.5 s; its last page, asked for at 5.5 s after d (id 4) was acknowledged
    // at 5 s, empty.
    const planted = ops.map((op) =>
      op.kind === 'page' && op.walk === 2 && op.index === 1 ? { ...op, invokedAt: 5.5 } : op,
    );
    onlyViolation(planted, stored, 'ryw_miss');
  });

  it('does not count a page read before the acknowledgement arrived as a miss', () => {
    const { ops, stored } = valid();
    // Walk 2's last page began at 4.5 s, before d (4) and e (5) were acknowledged (5 s, 6 s).
    expect(checkHistory(ops, stored).valid).toBe(true);
  });

  it('counts a page that leaves out an id an earlier page listed before it was acknowledged (stale_read), without failing', () => {
    const { ops, stored } = valid();
    // A third walk, begun after walk 1 listed 6 (the unknown create, never acknowledged): its
    // last page ends without it, as a read from the primary may while a replica shows a commit
    // the primary still waits to make visible.
    const planted = [...ops, page(3, 0, 0, 9, [1, 2, 3], false), page(3, 1, 3, 9.5, [4, 5], true)];
    const verdict = checkHistory(planted, stored);
    expect(verdict.counts.stale_read).toBe(1);
    expect(verdict.examples.stale_read).toHaveLength(1);
    expect(verdict.valid).toBe(true);
  });

  it('finds a walk that lists an id twice (repeat)', () => {
    const { ops, stored } = valid();
    const planted = ops.map((op) =>
      op.kind === 'page' && op.walk === 1 && op.index === 1
        ? { ...op, afterId: 2, ids: [3, 4, 5, 6] }
        : op,
    );
    onlyViolation(planted, stored, 'repeat');
  });

  it('finds a page whose ids do not ascend (out_of_order)', () => {
    const { ops, stored } = valid();
    const planted = ops.map((op) =>
      op.kind === 'page' && op.walk === 1 && op.index === 0 ? { ...op, ids: [2, 1, 3] } : op,
    );
    onlyViolation(planted, stored, 'out_of_order');
  });

  it('finds a page that lists a pet the database does not hold (phantom)', () => {
    const { ops, stored } = valid();
    const planted = ops.map((op) =>
      op.kind === 'page' && op.walk === 1 && op.index === 1 ? { ...op, ids: [4, 5, 6, 99] } : op,
    );
    onlyViolation(planted, stored, 'phantom');
  });
});
