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
    ['{"a":"1.0000000000000001 in a string"}'],
    ['{"a":"escaped \\" quote 9007199254740993"}'],
  ])('accepts %s', (text) => {
    expect(findRoundedNumbers(text)).toEqual([]);
  });

  it.each([
    ['{"a":9007199254740993}', ['a']],
    ['{"a":1.0000000000000001}', ['a']],
    ['{"b":1,"a":12345678901234567890}', ['a']],
    ['{"a":1e-400}', ['a']],
    ['[1, 2, 9007199254740993.0]', ['']],
    ['9007199254740993', ['']],
    ['{"name":"pending","e":1E-400}', ['e']],
    ['{"x":{"y":[9007199254740993]},"z":1.0000000000000001}', ['x', 'z']],
    ['{"k\\"ey":9007199254740993,"k\\"ey":9007199254740995}', ['k"ey']],
    ['{"a":"9007199254740993","b":{"c":"d"},"e":9007199254740993}', ['e']],
  ])('names where a rounded literal is in %s', (text, where) => {
    expect(findRoundedNumbers(text)).toEqual(where);
  });
});
