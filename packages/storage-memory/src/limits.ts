import { MAX_ID } from '@petstore/core';

/** Rejects a page query the core would never send: a bug upstream should be loud. */
export function checkPage(afterId: number | undefined, limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`limit must be a non-negative safe integer, got ${String(limit)}`);
  }
  if (afterId !== undefined && !Number.isSafeInteger(afterId)) {
    throw new RangeError(`afterId must be a safe integer, got ${String(afterId)}`);
  }
}

/** The id the next row gets, or an Error once ids would leave the safe-integer range. */
export function nextId(firstId: number, size: number, what: string): number {
  const id = firstId + size;
  if (id > MAX_ID) {
    throw new Error(
      `memory storage: cannot create more ${what}: the next id would exceed ${MAX_ID} (2^53 - 1)`,
    );
  }
  return id;
}

/** Index of the first row a keyset page `id > afterId` may start at (ids are `firstId + index`). */
export const startIndex = (firstId: number, afterId: number | undefined): number =>
  afterId === undefined ? 0 : Math.max(0, afterId - firstId + 1);
