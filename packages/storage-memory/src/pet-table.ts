import {
  PET_STATUSES,
  type Pet,
  type PetInput,
  type PetPageQuery,
  type PetStatus,
} from '@petstore/core';
import { type Column, float64Column, uint8Column, uint32Column } from './column.js';
import { checkPage, nextId, startIndex } from './limits.js';
import { upperBound } from './search.js';

const statusCode = (status: PetStatus): number => {
  const code = PET_STATUSES.indexOf(status);
  if (code < 0) throw new TypeError(`unknown pet status ${JSON.stringify(status)}`);
  return code;
};

/**
 * Pets stored column by column. Ids are dense (`firstId + index`, no delete in v1),
 * so a pet is found by index, an unfiltered page is a slice, and a filtered page is
 * a binary search into that status's ascending list of indexes, then a slice:
 * O(limit + log n) either way, never a scan. No object is kept per pet; result
 * objects are built on read (which also means callers can never mutate the store).
 */
export class PetTable {
  readonly #firstId: number;
  readonly #names: string[] = [];
  readonly #categoryIds = float64Column();
  readonly #statuses = uint8Column();
  /** Per status code: indexes of the pets with that status, ascending because append-only. */
  readonly #byStatus: readonly Column<Uint32Array>[] = PET_STATUSES.map(() => uint32Column());

  /** `firstId` exists so tests can start near 2^53 − 1; the storage always uses 1. */
  constructor(firstId = 1) {
    this.#firstId = firstId;
  }

  get size(): number {
    return this.#names.length;
  }

  /** Synchronous on purpose: the id is read and taken with no await in between. */
  insert(input: PetInput): Pet {
    const code = statusCode(input.status);
    const index = this.#names.length;
    const id = nextId(this.#firstId, index, 'pets');
    this.#names.push(input.name);
    this.#categoryIds.push(input.categoryId);
    this.#statuses.push(code);
    this.#byStatus[code]?.push(index);
    return { id, name: input.name, categoryId: input.categoryId, status: input.status };
  }

  get(id: number): Pet | undefined {
    const index = id - this.#firstId;
    return Number.isInteger(index) && index >= 0 && index < this.size
      ? this.#row(index)
      : undefined;
  }

  page({ afterId, limit, status }: PetPageQuery): Pet[] {
    checkPage(afterId, limit);
    const start = startIndex(this.#firstId, afterId);
    const rows: Pet[] = [];
    if (status === undefined) {
      const end = Math.min(this.size, start + limit);
      for (let index = start; index < end; index += 1) rows.push(this.#row(index));
      return rows;
    }
    const indexes = this.#byStatus[statusCode(status)];
    if (indexes === undefined) return rows;
    // First entry with index >= start, i.e. greater than start - 1.
    const from = upperBound(indexes, start - 1);
    const end = Math.min(indexes.length, from + limit);
    for (let position = from; position < end; position += 1) {
      rows.push(this.#row(indexes.get(position)));
    }
    return rows;
  }

  #row(index: number): Pet {
    // Key order is part of the contract: id, name, categoryId, status.
    return {
      id: this.#firstId + index,
      name: this.#names[index] ?? '',
      categoryId: this.#categoryIds.get(index),
      status: PET_STATUSES[this.#statuses.get(index)] ?? 'available',
    };
  }
}
