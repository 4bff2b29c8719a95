import type { Order, OrderInput, PageQuery } from '@petstore/core';
import { checkPage, nextId, startIndex } from './limits.js';

const copy = (id: number, input: OrderInput): Order => ({
  id,
  petId: input.petId,
  quantity: input.quantity,
  shipDate: input.shipDate,
  status: input.status,
  complete: input.complete,
});

/**
 * Orders, append-only with dense ids like pets. Orders are few and have no
 * filter, so one frozen record per order is simpler than columns and still
 * pages in O(limit): the page starts at index `afterId - firstId + 1`.
 */
export class OrderLog {
  readonly #firstId: number;
  readonly #rows: Order[] = [];

  constructor(firstId = 1) {
    this.#firstId = firstId;
  }

  get size(): number {
    return this.#rows.length;
  }

  insert(input: OrderInput): Order {
    const id = nextId(this.#firstId, this.#rows.length, 'orders');
    const stored = Object.freeze(copy(id, input));
    this.#rows.push(stored);
    return copy(id, stored);
  }

  page({ afterId, limit }: PageQuery): Order[] {
    checkPage(afterId, limit);
    const start = startIndex(this.#firstId, afterId);
    return this.#rows.slice(start, start + limit).map((row) => copy(row.id, row));
  }
}
