import { describe, expect, it } from 'vitest';
import { chooseEncoding, type Encoding, noneMatch } from '../src/negotiation.js';

const ALL: readonly Encoding[] = ['br', 'gzip', 'identity'];

describe('chooseEncoding (Accept-Encoding)', () => {
  it.each([
    // header, chosen
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br, zstd', 'br'], // Chrome: equal weights, ours decides
    ['gzip, deflate', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['gzip;q=1, br;q=0.5', 'gzip'], // the client's weights first
    ['BR', 'br'], // codings are case-insensitive
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['identity', 'identity'],
    ['deflate', 'identity'], // nothing we have: identity, still acceptable
    ['br;q=0.0, gzip;q=0.000', 'identity'],
    ['br;q=2, gzip', 'gzip'], // a malformed weight counts for nothing
    ['br;q=abc', 'identity'],
  ] as const)('%j → %s', (header, chosen) => {
    expect(chooseEncoding(header, ALL)).toBe(chosen);
  });

  it('takes a repeated header as one list', () => {
    expect(chooseEncoding(['br;q=0', 'gzip'], ALL)).toBe('gzip');
  });

  it('finds nothing acceptable when identity is excluded and nothing else is on offer', () => {
    // Codings not named (and no `*`) are not acceptable either.
    expect(chooseEncoding('identity;q=0', ALL)).toBeUndefined();
    expect(chooseEncoding('br, identity;q=0', ALL)).toBe('br');
    expect(chooseEncoding('identity;q=0', ['identity'])).toBeUndefined();
    expect(chooseEncoding('*;q=0', ['identity'])).toBeUndefined();
    expect(chooseEncoding('br;q=0, gzip;q=0, identity;q=0', ALL)).toBeUndefined();
    expect(chooseEncoding('*;q=0, identity', ['identity'])).toBe('identity');
  });
});

describe('noneMatch (If-None-Match)', () => {
  it.each([
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true], // the weak comparison If-None-Match calls for
    ['"x", "abc"', true],
    ['"x","y"', false],
    ['*', true],
    ['"abc-br"', false],
    ['abc', false], // no quotes: no entity tag
  ] as const)('%j against "abc" → %s', (header, matches) => {
    expect(noneMatch(header, '"abc"')).toBe(matches);
  });
});
