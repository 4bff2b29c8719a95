import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../src/input/cursor.js';
import { MAX_ID } from '../src/schemas/schemas.js';

describe('page cursors', () => {
  it("are the base64url of the id's digits, as Buffer writes it, and read back", () => {
    const ids = fc.oneof(
      fc.integer({ min: 1, max: 1_000 }),
      fc.integer({ min: 1, max: MAX_ID }),
      fc.constantFrom(1, 9, 10, 99, 100, 999, 1000, MAX_ID, MAX_ID - 1),
    );
    fc.assert(
      fc.property(ids, (id) => {
        const cursor = encodeCursor(id);
        expect(cursor).toBe(Buffer.from(String(id)).toString('base64url'));
        expect(decodeCursor(cursor)).toBe(id);
      }),
      { numRuns: 5_000 },
    );
  });
});
