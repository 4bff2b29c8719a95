import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { type AnyParameter, limitParameter, petIdParameter } from '../src/input/params.js';
import { OPERATIONS } from '../src/operations/operations.js';

/** Text a client might send: digits and near misses, and anything at all. */
const texts = fc.oneof(
  fc.stringMatching(/^[+-]?0*\d{0,18}(?:\.\d{0,3})?(?:e\d)?$/),
  fc.string(),
  fc.integer({ min: -5, max: 2 ** 53 + 5 }).map(String),
);

/** Every parameter of the table that carries a valibot schema. */
const withSchemas = [
  ...new Set(OPERATIONS.flatMap((operation) => operation.parameters as AnyParameter[])),
].filter(
  (parameter): parameter is AnyParameter & { schema: v.GenericSchema } =>
    typeof parameter.schema !== 'string',
);

describe('parameters of the operation table', () => {
  it('are read by a fast check that gives what their documented schema gives, for any text', () => {
    expect(withSchemas.map((parameter) => parameter.name).sort()).toEqual([
      'cursor',
      'limit',
      'petId',
    ]);
    for (const parameter of [limitParameter, petIdParameter]) {
      fc.assert(
        fc.property(texts, (text) => {
          const schema = v.safeParse(parameter.schema as v.GenericSchema, text);
          expect(parameter.parse(text), `${parameter.name}=${text}`).toBe(
            schema.success ? schema.output : undefined,
          );
        }),
        { numRuns: 2000 },
      );
    }
  });

  it('define limit once: its range and default reach the rule, the reader and the document', () => {
    expect(limitParameter.rule).toBe('must be an integer from 1 to 100');
    expect(limitParameter.absent).toBe(20);
    expect([limitParameter.parse('1'), limitParameter.parse('100')]).toEqual([1, 100]);
    expect([limitParameter.parse('0'), limitParameter.parse('101')]).toEqual([
      undefined,
      undefined,
    ]);
    const listing = OPERATIONS.filter((operation) =>
      operation.parameters.some((parameter) => parameter.name === 'limit'),
    );
    expect(listing.map((operation) => operation.operationId)).toEqual(['listPets', 'listOrders']);
    for (const operation of listing) {
      expect(operation.parameters.find((parameter) => parameter.name === 'limit')).toBe(
        limitParameter,
      );
    }
  });
});
