import { MAX_ID, type NewPet, PET_STATUSES } from '../schemas/schemas.js';

const STATUSES: ReadonlySet<unknown> = new Set(PET_STATUSES);

/**
 * `NewPetSchema`'s rules for the common case, a valid body, written out by
 * hand: valibot's pipeline costs as much as parsing the JSON. `false` only
 * means "not plainly valid": the schema then decides, and words the errors.
 * (test/new-pet-fast-path.test.ts checks it never accepts what the schema refuses.)
 */
export function isPlainNewPet(value: unknown): value is NewPet {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  // `for in` walks a parsed body's keys without building an array; an inherited
  // enumerable key (a polluted prototype) is refused here like an unknown one.
  for (const key in value) {
    if (key !== 'name' && key !== 'categoryId' && key !== 'status') return false;
  }
  const { name, categoryId, status } = value as Record<string, unknown>;
  return (
    typeof name === 'string' &&
    name.length >= 1 &&
    // 256 UTF-16 units are at most 256 code points; longer names go to the schema.
    name.length <= 256 &&
    name.isWellFormed() &&
    !name.includes('\u0000') &&
    typeof categoryId === 'number' &&
    Number.isInteger(categoryId) &&
    categoryId >= 1 &&
    categoryId <= MAX_ID &&
    (status === undefined ? !Object.hasOwn(value, 'status') : STATUSES.has(status))
  );
}
