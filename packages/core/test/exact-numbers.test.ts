import { describe, expect, it } from 'vitest';
import { findInexactNumber } from '../src/exact-numbers.js';

describe('findInexactNumber', () => {
  it.each([
    ['{"a":1}'],
    ['{"a":9007199254740991}'],
    ['{"a":1.5}'],
    ['{"a":1.0}'],
    ['{"a":1e3}'],
    ['{"a":1.50e1}'],
    ['{"a":-0}'],
    ['{"a":"1.0000000000000001 in a string"}'],
    ['{"a":"escaped \\" quote 9007199254740993"}'],
  ])('accepts %s', (text) => {
    expect(findInexactNumber(text)).toBeUndefined();
  });

  it.each([
    ['{"a":9007199254740993}', '9007199254740993'],
    ['{"a":1.0000000000000001}', '1.0000000000000001'],
    ['{"a":12345678901234567890}', '12345678901234567890'],
    ['{"a":1e-400}', '1e-400'],
    ['[1, 2, 9007199254740993.0]', '9007199254740993.0'],
    ['{"name":"pending","e":1E-400}', '1E-400'],
  ])('finds the rounded literal in %s', (text, literal) => {
    expect(findInexactNumber(text)).toBe(literal);
  });
});
