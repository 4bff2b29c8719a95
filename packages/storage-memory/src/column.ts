type NumberArray = Float64Array | Uint32Array | Uint8Array;

/**
 * An append-only column of numbers in one typed array that doubles when full:
 * amortised O(1) appends, O(1) reads, and no object per row.
 */
export class Column<T extends NumberArray> {
  #data: T;
  #length = 0;
  readonly #allocate: (capacity: number) => T;

  constructor(allocate: (capacity: number) => T, initialCapacity = 16) {
    this.#allocate = allocate;
    this.#data = allocate(initialCapacity);
  }

  get length(): number {
    return this.#length;
  }

  /** Allocated slots, for tests of the growth policy. */
  get capacity(): number {
    return this.#data.length;
  }

  push(value: number): void {
    if (this.#length === this.#data.length) this.#grow();
    this.#data[this.#length] = value;
    this.#length += 1;
  }

  /** The value at `index`; the caller keeps `index < length`. */
  get(index: number): number {
    return this.#data[index] ?? Number.NaN;
  }

  #grow(): void {
    const next = this.#allocate(Math.max(16, this.#data.length * 2));
    next.set(this.#data);
    this.#data = next;
  }
}

export const float64Column = (): Column<Float64Array> => new Column((n) => new Float64Array(n));
export const uint32Column = (): Column<Uint32Array> => new Column((n) => new Uint32Array(n));
export const uint8Column = (): Column<Uint8Array> => new Column((n) => new Uint8Array(n));
