/** What the search reads: a sorted sequence of numbers. */
export interface SortedNumbers {
  readonly length: number;
  get(index: number): number;
}

/**
 * Position of the first value greater than `value` in an ascending sequence
 * (its length when there is none): O(log n) reads. This is what lets a keyset
 * page start at `afterId` without walking the rows before it.
 */
export function upperBound(sorted: SortedNumbers, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted.get(middle) <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
