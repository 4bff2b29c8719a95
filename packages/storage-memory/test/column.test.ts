import { describe, expect, it } from 'vitest';
import { float64Column, uint8Column } from '../src/column.js';
import { type SortedNumbers, upperBound } from '../src/search.js';

describe('Column', () => {
  it('keeps every value across growth and grows by doubling', () => {
    const column = float64Column();
    const capacities = new Set<number>();
    for (let i = 0; i < 5000; i += 1) {
      column.push(2 ** 53 - 1 - i);
      capacities.add(column.capacity);
    }
    expect(column.length).toBe(5000);
    for (let i = 0; i < 5000; i += 1) expect(column.get(i)).toBe(2 ** 53 - 1 - i);
    expect([...capacities]).toEqual([16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192]);
  });

  it('a Uint8 column stores small codes', () => {
    const column = uint8Column();
    for (const code of [0, 1, 2, 2, 1]) column.push(code);
    expect(Array.from({ length: column.length }, (_, i) => column.get(i))).toEqual([0, 1, 2, 2, 1]);
  });
});

describe('upperBound', () => {
  /** A sorted sequence that counts how often it is read. */
  const counted = (length: number, valueAt: (i: number) => number) => {
    let reads = 0;
    const sorted: SortedNumbers = {
      length,
      get: (i) => {
        reads += 1;
        return valueAt(i);
      },
    };
    return { sorted, reads: () => reads };
  };

  it('finds the first value greater than the probe', () => {
    const values = [1, 3, 3, 5, 9];
    const sorted = { length: values.length, get: (i: number) => values[i] ?? Number.NaN };
    expect([0, 1, 2, 3, 4, 5, 8, 9, 10].map((v) => upperBound(sorted, v))).toEqual([
      0, 1, 1, 3, 3, 4, 4, 5, 5,
    ]);
    expect(upperBound({ length: 0, get: () => Number.NaN }, 7)).toBe(0);
  });

  it('reads at most ceil(log2(n + 1)) entries of a million (a scan would read up to a million)', () => {
    const n = 1_000_000;
    const bound = Math.ceil(Math.log2(n + 1));
    for (const probe of [-1, 0, 1, 499_999, 999_998, 999_999, 5_000_000]) {
      const { sorted, reads } = counted(n, (i) => i * 3);
      const position = upperBound(sorted, probe * 3);
      expect(position).toBe(Math.min(n, Math.max(0, probe + 1)));
      expect(reads()).toBeLessThanOrEqual(bound);
    }
  });
});
