import {
  ORDER_STATUSES,
  type Order,
  type OrderInput,
  type OrderStatus,
  PET_STATUSES,
  type Pet,
  type PetInput,
  type PetStatus,
} from '@petstore/core';

/** A row as node:sqlite returns it: column name to value. */
export type Row = Readonly<Record<string, unknown>>;

const isPetStatus = (value: unknown): value is PetStatus =>
  typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
const isOrderStatus = (value: unknown): value is OrderStatus =>
  typeof value === 'string' && (ORDER_STATUSES as readonly string[]).includes(value);

// The tables' STRICT types and CHECK constraints make these impossible; if one fires, the file
// was written by something else.
const unexpected = (what: string, value: unknown): Error =>
  new Error(`unexpected ${what} ${JSON.stringify(value)} in the database`);

const integer = (what: string, value: unknown): number => {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  throw unexpected(what, typeof value === 'bigint' ? value.toString() : value);
};

const text = (what: string, value: unknown): string => {
  if (typeof value === 'string') return value;
  throw unexpected(what, value);
};

/** A fresh object with exactly the Pet keys, in the contract's order. */
export function toPet(row: Row): Pet {
  const status = row.status;
  if (!isPetStatus(status)) throw unexpected('pet status', status);
  return {
    id: integer('pet id', row.id),
    name: text('pet name', row.name),
    categoryId: integer('category id', row.category_id),
    status,
  };
}

export function toOrder(row: Row): Order {
  const status = row.status;
  if (!isOrderStatus(status)) throw unexpected('order status', status);
  return {
    id: integer('order id', row.id),
    petId: integer('pet id', row.pet_id),
    quantity: integer('quantity', row.quantity),
    shipDate: text('ship date', row.ship_date),
    status,
    complete: integer('complete', row.complete) === 1,
  };
}

/** Refuses a status the core never sends: a bug upstream should be loud, not an empty page. */
export function checkPetStatus(status: unknown): PetStatus {
  if (!isPetStatus(status)) throw new TypeError(`unknown pet status ${JSON.stringify(status)}`);
  return status;
}

/** Rejects a page query the core would never send. */
export function checkPage(afterId: number | undefined, limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`limit must be a non-negative safe integer, got ${String(limit)}`);
  }
  if (afterId !== undefined && !Number.isSafeInteger(afterId)) {
    throw new RangeError(`afterId must be a safe integer, got ${String(afterId)}`);
  }
}

export const petValues = (input: PetInput): [string, number, string] => [
  input.name,
  input.categoryId,
  input.status,
];

export const orderValues = (input: OrderInput): [number, number, string, string, number] => [
  input.petId,
  input.quantity,
  input.shipDate,
  input.status,
  // node:sqlite on Node 22 binds no booleans.
  input.complete ? 1 : 0,
];
