import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { isPlainNewPet } from '../src/input/new-pet-fast-path.js';
import { MAX_ID, NewPetSchema } from '../src/schemas/schemas.js';

// isPlainNewPet skips valibot for bodies that are plainly valid. It may say
// "not plainly valid" too often (the schema then decides), never too seldom.
const nearlyValid = fc.record(
  {
    name: fc.oneof(
      fc.string({ minLength: 0, maxLength: 300, unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
      fc.constantFrom('', '\u0000', 'a\u0000b', '\ud800', 'x'.repeat(256), 'x'.repeat(257)),
      fc.integer(),
      fc.constant(null),
    ),
    categoryId: fc.oneof(
      fc.integer({ min: -2, max: 10 }),
      fc.constantFrom(MAX_ID, MAX_ID + 1, MAX_ID + 2, 1.5, Number.NaN, Infinity, -0, 0),
      fc.double(),
      fc.string(),
      fc.constant(null),
    ),
    status: fc.oneof(
      fc.constantFrom('available', 'pending', 'sold', 'Sold', '', undefined),
      fc.string(),
      fc.integer(),
    ),
    extra: fc.anything(),
  },
  { requiredKeys: [] },
);

describe('isPlainNewPet', () => {
  it('accepts only what NewPetSchema accepts, with the same values', () => {
    fc.assert(
      fc.property(fc.oneof(nearlyValid, fc.anything()), (value) => {
        if (!isPlainNewPet(value)) return;
        const parsed = v.safeParse(NewPetSchema, value);
        expect(parsed.success).toBe(true);
        if (parsed.success) expect(parsed.output).toEqual(value);
      }),
      { numRuns: 20_000 },
    );
  });

  it('takes the usual valid bodies (else it would spare nothing)', () => {
    for (const body of [
      { name: 'Rex', categoryId: 7 },
      { name: 'Rex', categoryId: 7, status: 'pending' },
      { status: 'sold', categoryId: MAX_ID, name: 'é'.repeat(256) },
    ]) {
      expect(isPlainNewPet(JSON.parse(JSON.stringify(body))), JSON.stringify(body)).toBe(true);
    }
  });
});
