import type { CreateOp, HistoryOp, PageOp, StoredPet } from './history.js';

// The history checked against what the database holds afterwards. Pure: the history and the
// stored pets in, the verdict out. What it asserts (docs/operations.md, "Partitions"):
//
//   lost, doubled, mismatched   every acknowledged create is stored exactly once, as the pet
//                               (id) and under the Idempotency-Key it was acknowledged with
//   failed_stored               every create that definitely failed is stored nowhere
//   unknown_doubled             every create of unknown outcome is stored at most once
//   unexpected                  no pet is stored that no create asked for
//   skipped                     a walk shows every id that existed when it began (acknowledged
//                               before its first page was asked for), each on the page whose
//                               range holds it
//   ryw_miss                    a page read after a create was acknowledged (on any instance,
//                               from a replica or not) shows it, when its id is in the page's
//                               range (acknowledged after the walk began: before, it is skipped)
//   repeat, out_of_order        a walk's pages list ascending ids, none twice
//   phantom                     every id a page lists is a stored pet (never one a failover lost)
//
// And one anomaly, counted and shown but not a violation of the contract:
//
//   stale_read                  a page leaves out an id in its range that an earlier page had
//                               listed though no client had its acknowledgement yet. A replica
//                               applies a commit before the primary makes it visible (the
//                               primary's commit waits for the synchronous standby first), so
//                               while that wait lasts (a standby lost) a read from a replica can
//                               show a pet that a later read from the primary does not.

export const VIOLATION_KINDS = [
  'lost',
  'doubled',
  'mismatched',
  'failed_stored',
  'unknown_doubled',
  'unexpected',
  'skipped',
  'ryw_miss',
  'repeat',
  'out_of_order',
  'phantom',
] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];
export const ANOMALY_KINDS = ['stale_read'] as const;
export type AnomalyKind = (typeof ANOMALY_KINDS)[number];
type Kind = ViolationKind | AnomalyKind;
const KINDS: readonly Kind[] = [...VIOLATION_KINDS, ...ANOMALY_KINDS];

export interface Verdict {
  readonly creates: {
    readonly ok: number;
    readonly failed: number;
    readonly unknown: number;
    /** Of the unknown ones, how many were stored (once). */
    readonly unknownStored: number;
  };
  readonly pages: {
    readonly ok: number;
    readonly failed: number;
    readonly unknown: number;
    readonly walks: number;
    /** Walks that reached the last page. */
    readonly completeWalks: number;
  };
  /** Violations and anomalies found, by kind (every kind present, 0 when none). */
  readonly counts: Readonly<Record<Kind, number>>;
  /** The first few of each kind, said in words. */
  readonly examples: Readonly<Record<Kind, readonly string[]>>;
  /** No violation (anomalies allowed). */
  readonly valid: boolean;
}

const EXAMPLES_PER_KIND = 10;

/** How many leading values of ascending `sorted` are below `value` (`orEqual`: at most it). */
function countLeading(sorted: readonly number[], value: number, orEqual: boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const at = sorted[mid] as number;
    if (at < value || (orEqual && at === value)) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Appends `value` to the list under `key`, starting one where there is none. */
function pushTo<K, V>(lists: Map<K, V[]>, key: K, value: V): void {
  const list = lists.get(key);
  if (list === undefined) lists.set(key, [value]);
  else list.push(value);
}

/**
 * The highest id of the `[time, id]` pairs whose time is before `t`, as a function of `t` (0 for
 * none). A walk's last page covers every id above its cursor, but only ids acknowledged (or
 * listed) before the page was asked for can be missing from it: bounded so, an hour's history
 * is not walked to its end once per walk.
 */
function highestBefore(pairs: readonly (readonly [number, number])[]): (t: number) => number {
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  const times = sorted.map(([time]) => time);
  const highest: number[] = [];
  let max = 0;
  for (const [, id] of sorted) {
    max = Math.max(max, id);
    highest.push(max);
  }
  return (t) => {
    const before = countLeading(times, t, false);
    return before === 0 ? 0 : (highest[before - 1] as number);
  };
}

/** Ids in `(after, upTo]` of the ascending `sorted`. */
function* inRange(sorted: readonly number[], after: number, upTo: number): Generator<number> {
  for (let n = countLeading(sorted, after, true); n < sorted.length; n++) {
    const id = sorted[n] as number;
    if (id > upTo) return;
    yield id;
  }
}

export function checkHistory(ops: readonly HistoryOp[], stored: readonly StoredPet[]): Verdict {
  const counts = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>;
  const examples = Object.fromEntries(KINDS.map((kind) => [kind, [] as string[]])) as Record<
    Kind,
    string[]
  >;
  const violation = (kind: Kind, detail: () => string): void => {
    counts[kind]++;
    if (examples[kind].length < EXAMPLES_PER_KIND) examples[kind].push(detail());
  };

  const creates = ops.filter((op): op is CreateOp => op.kind === 'create');
  const pages = ops.filter((op): op is PageOp => op.kind === 'page');
  const byName = new Map<string, StoredPet[]>();
  // Pushed, not copied: an hour's history holds a million pets and walks of thousands of pages.
  for (const pet of stored) pushTo(byName, pet.name, pet);
  const storedIds = new Set(stored.map((pet) => pet.id));

  // Creates, against the stored pets.
  let unknownStored = 0;
  const asked = new Set<string>();
  for (const op of creates) {
    asked.add(op.name);
    const rows = byName.get(op.name) ?? [];
    const said = () => `${op.process} ${op.name} (key ${op.key}, ${op.outcome})`;
    if (op.outcome === 'ok') {
      if (rows.length === 0)
        violation('lost', () => `${said()}: acknowledged as id ${op.id}, not stored`);
      else if (rows.length > 1)
        violation(
          'doubled',
          () => `${said()}: stored ${rows.length} times (ids ${rows.map((r) => r.id).join(', ')})`,
        );
      else if (rows[0]?.id !== op.id || (rows[0]?.key !== undefined && rows[0].key !== op.key))
        violation(
          'mismatched',
          () =>
            `${said()}: acknowledged as id ${op.id}, stored as id ${rows[0]?.id} under key ${rows[0]?.key}`,
        );
    } else if (op.outcome === 'failed') {
      if (rows.length > 0)
        violation(
          'failed_stored',
          () => `${said()}: failed (${op.answer}), stored as id ${rows[0]?.id}`,
        );
    } else if (op.outcome === 'unknown') {
      if (rows.length > 1)
        violation('unknown_doubled', () => `${said()}: stored ${rows.length} times`);
      if (rows.length === 1) unknownStored++;
    }
  }
  for (const pet of stored) {
    if (!asked.has(pet.name))
      violation('unexpected', () => `id ${pet.id} ${pet.name}: no create asked for it`);
  }

  // Pages: their order, and what each must show.
  const acked = creates
    .filter((op) => op.outcome === 'ok' && op.id !== undefined && op.completedAt !== undefined)
    .sort((a, b) => (a.id as number) - (b.id as number));
  const ackedIds = acked.map((op) => op.id as number);
  const ackedAt = new Map(acked.map((op) => [op.id as number, op.completedAt as number]));
  const okPages = pages.filter((page) => page.outcome === 'ok' && page.ids !== undefined);
  // When each id was first seen listed: from then on it existed.
  const firstListed = new Map<number, number>();
  for (const page of okPages) {
    for (const id of page.ids ?? []) {
      const at = page.completedAt as number;
      if (!(firstListed.get(id) !== undefined && (firstListed.get(id) as number) <= at))
        firstListed.set(id, at);
    }
  }
  const listedIds = [...firstListed.keys()].sort((a, b) => a - b);
  const ackedBefore = highestBefore([...ackedAt].map(([id, at]) => [at, id] as const));
  const listedBefore = highestBefore([...firstListed].map(([id, at]) => [at, id] as const));

  const walks = new Map<number, PageOp[]>();
  for (const page of pages) pushTo(walks, page.walk, page);
  let completeWalks = 0;
  for (const [walk, walkPages] of walks) {
    walkPages.sort((a, b) => a.index - b.index);
    const began = walkPages[0]?.invokedAt ?? 0;
    const seen = new Set<number>();
    let previous = 0;
    for (const page of walkPages) {
      if (page.outcome !== 'ok' || page.ids === undefined) break;
      if (page.last === true) completeWalks++;
      const ids = page.ids;
      const where = `walk ${walk} page ${page.index} (ids after ${page.afterId}, ${page.process}, at ${page.invokedAt.toFixed(2)} s)`;
      for (const id of ids) {
        if (seen.has(id)) violation('repeat', () => `${where}: id ${id} again`);
        else if (id <= previous || id <= page.afterId)
          violation(
            'out_of_order',
            () => `${where}: id ${id} after ${Math.max(previous, page.afterId)}`,
          );
        if (!storedIds.has(id)) violation('phantom', () => `${where}: id ${id} is not stored`);
        seen.add(id);
        previous = Math.max(previous, id);
      }
      // The page covers (afterId, its last id], or everything above afterId when it is the last.
      const upTo = page.last === true ? Number.POSITIVE_INFINITY : (ids.at(-1) ?? page.afterId);
      const shown = new Set(ids);
      for (const id of inRange(
        ackedIds,
        page.afterId,
        Math.min(upTo, ackedBefore(page.invokedAt)),
      )) {
        const at = ackedAt.get(id) as number;
        if (at >= page.invokedAt || shown.has(id)) continue;
        if (at < began)
          violation(
            'skipped',
            () =>
              `${where}: id ${id}, acknowledged at ${at.toFixed(2)} s before the walk began, not shown`,
          );
        else
          violation(
            'ryw_miss',
            () => `${where}: id ${id}, acknowledged at ${at.toFixed(2)} s, not shown`,
          );
      }
      for (const id of inRange(
        listedIds,
        page.afterId,
        Math.min(upTo, listedBefore(page.invokedAt)),
      )) {
        const listedAt = firstListed.get(id) as number;
        const acknowledgedBefore = (ackedAt.get(id) ?? Number.POSITIVE_INFINITY) < page.invokedAt;
        if (listedAt < page.invokedAt && !shown.has(id) && !acknowledgedBefore)
          violation(
            'stale_read',
            () =>
              `${where}: id ${id}, listed at ${listedAt.toFixed(2)} s (not yet acknowledged), not shown`,
          );
      }
    }
  }

  const tally = (list: readonly { outcome?: string | undefined }[], outcome: string) =>
    list.filter((op) => op.outcome === outcome).length;
  return {
    creates: {
      ok: tally(creates, 'ok'),
      failed: tally(creates, 'failed'),
      unknown: tally(creates, 'unknown'),
      unknownStored,
    },
    pages: {
      ok: tally(pages, 'ok'),
      failed: tally(pages, 'failed'),
      unknown: tally(pages, 'unknown'),
      walks: walks.size,
      completeWalks,
    },
    counts,
    examples,
    valid: VIOLATION_KINDS.every((kind) => counts[kind] === 0),
  };
}

/** The verdict in a few lines. */
export function describeVerdict(verdict: Verdict): string {
  const { creates, pages, counts, examples } = verdict;
  const lines = [
    `creates: ${creates.ok} acknowledged, ${creates.failed} failed, ${creates.unknown} unknown (${creates.unknownStored} of them stored once)`,
    `pages: ${pages.ok} read, ${pages.failed} failed, ${pages.unknown} unknown; ${pages.walks} walks, ${pages.completeWalks} to the end`,
    `violations: ${VIOLATION_KINDS.map((kind) => `${kind} ${counts[kind]}`).join(', ')}`,
    `anomalies: ${ANOMALY_KINDS.map((kind) => `${kind} ${counts[kind]}`).join(', ')}`,
  ];
  for (const kind of KINDS) {
    for (const example of examples[kind]) lines.push(`  ${kind}: ${example}`);
  }
  return lines.join('\n');
}
