import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findRoundedNumbers } from '../src/input/exact-numbers.js';

describe('findRoundedNumbers', () => {
  it.each([
    ['{"a":1}'],
    ['{"a":9007199254740991}'],
    ['{"a":1.5}'],
    ['{"a":1.0}'],
    ['{"a":1e3}'],
    ['{"a":1.50e1}'],
    ['{"a":-0}'],
    ['{"a":0e99999999}'],
    ['{"a":"1.0000000000000001 in a string"}'],
    ['{"a":"escaped \\" quote 1.0000000000000001"}'],
    // Past the safe range a value fails validation whatever it was rounded to: not looked at.
    ['{"a":9007199254740993}'],
    ['{"a":1e308}'],
  ])('accepts %s', (text) => {
    expect(findRoundedNumbers(text)).toEqual([]);
  });

  it.each([
    ['{"a":9007199254740990.9}', ['a']],
    ['{"a":1.0000000000000001}', ['a']],
    ['{"b":1,"a":90071992547409909e-1}', ['a']],
    ['{"a":1e-400}', ['a']],
    ['[1, 2, 1.0000000000000001]', ['']],
    ['1.0000000000000001', ['']],
    ['{"name":"pending","e":1E-400}', ['e']],
    ['{"x":{"y":[1.0000000000000001]},"z":1.0000000000000001}', ['x', 'z']],
    ['{"k\\"ey":1.0000000000000001,"k\\"ey":2.0000000000000001}', ['k"ey']],
    ['{"a":"1.0000000000000001","b":{"c":"d"},"e":1.0000000000000001}', ['e']],
  ])('names where a rounded literal is in %s', (text, where) => {
    expect(findRoundedNumbers(text)).toEqual(where);
  });
});

/** The literal's exact value compared with what JSON.parse made of it, in BigInt arithmetic. */
function exactByBigInt(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isSafeInteger(value)) return true;
  const [mantissa = '', exponent = '0'] = literal.toLowerCase().split('e');
  const negative = mantissa.startsWith('-');
  const [whole = '', fraction = ''] = mantissa.replace('-', '').split('.');
  const shift = Number(exponent) - fraction.length;
  const digits = BigInt(whole + fraction) * (negative ? -1n : 1n);
  const target = BigInt(value);
  return shift >= 0
    ? digits * 10n ** BigInt(shift) === target
    : digits === target * 10n ** BigInt(-shift);
}

/** JSON number literals near and inside the safe-integer range, with fractions and exponents. */
const literal = fc
  .record({
    negative: fc.boolean(),
    whole: fc.oneof(
      fc.constantFrom('0', '1', '9007199254740991', '9007199254740990', '4503599627370497'),
      fc.bigInt({ min: 1n, max: 10n ** 20n }).map(String),
    ),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,25}$/), { nil: undefined }),
    exponent: fc.option(fc.integer({ min: -40, max: 40 }), { nil: undefined }),
  })
  .map(
    ({ negative, whole, fraction, exponent }) =>
      `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}${
        exponent === undefined ? '' : `e${exponent}`
      }`,
  );

describe('findRoundedNumbers against exact arithmetic', () => {
  it('refuses exactly the literals JSON.parse rounded onto a safe integer', () => {
    fc.assert(
      fc.property(literal, (text) => {
        const rounded = findRoundedNumbers(`{"a":${text}}`).length > 0;
        expect(rounded, text).toBe(!exactByBigInt(text));
      }),
      { numRuns: 5_000, seed: 20261126 },
    );
  });

  it('looks at each literal once, in time linear in its length, whatever its exponent', () => {
    // The worst a 16 KiB body can hold: literals with huge exponents, or one long literal.
    const huge = `[${Array.from({ length: 2_730 }, () => '1e308').join(',')}]`;
    const long = `{"a":1.${'0'.repeat(16_000)}1}`;
    expect(findRoundedNumbers(huge)).toEqual([]);
    expect(findRoundedNumbers(long)).toEqual(['a']);
  });
});
