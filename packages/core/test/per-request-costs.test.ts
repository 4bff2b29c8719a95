import { describe, expect, it, vi } from 'vitest';
import { createAuthenticator } from '../src/auth/auth.js';
import { generateRequestId } from '../src/http/request-id.js';

describe('generated request ids', () => {
  it('are distinct RFC 9562 version 8 UUIDs', () => {
    const ids = Array.from({ length: 20_000 }, generateRequestId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 100)) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('count up by one in the last group, across every carry', () => {
    const ids = Array.from({ length: 1_000 }, generateRequestId);
    for (let i = 1; i < ids.length; i++) {
      const [before, after] = [ids[i - 1] ?? '', ids[i] ?? ''];
      expect(after.slice(0, 24)).toBe(before.slice(0, 24));
      expect([before, Number.parseInt(after.slice(24), 16)]).toEqual([
        before,
        Number.parseInt(before.slice(24), 16) + 1,
      ]);
    }
  });
});

describe('the key check, once a token is verified', () => {
  const authenticate = createAuthenticator({
    apiKeys: ['key-one-0123456789', { id: 'ops', key: 'key-two-0123456789' }],
  });

  it('answers a verified header again with the same principal, and still refuses others', () => {
    const first = authenticate({ authorization: 'Bearer key-two-0123456789' });
    expect(first).toEqual({ kind: 'principal', id: 'id:ops' });
    expect(authenticate({ authorization: 'Bearer key-two-0123456789' })).toEqual(first);
    expect(authenticate({ authorization: 'bearer   key-two-0123456789 ' })).toEqual(first);
    for (const other of [
      'Bearer key-two-01234567892',
      'Bearer key-two-012345678',
      'Basic key-two-0123456789',
      'Bearer key-one-0123456789 ',
    ]) {
      const answer = authenticate({ authorization: other }) as { kind: string; code?: string };
      const expected = other === 'Bearer key-one-0123456789 ' ? 'principal' : 'error';
      expect([other, answer.kind]).toEqual([other, expected]);
    }
  });

  it('keeps the bearer parsing of the contract for unusual spellings', () => {
    expect(authenticate({ authorization: 'Bearer key-one-0123456789\tx' })).toMatchObject({
      kind: 'error',
    });
    expect(authenticate({ authorization: 'Bearer\tkey-one-0123456789' })).toMatchObject({
      kind: 'principal',
    });
    expect(authenticate({ authorization: 'Bearer key\u00a0one-0123456789' })).toMatchObject({
      kind: 'error',
    });
  });
});

describe('the cache of verified headers', () => {
  it('never looks a token or a key up by its bytes: a Map sees digests only', () => {
    const keys = ['key-one-5f0c2a9e7d1b', 'key-two-4c38a6e0f2d9'];
    const authenticate = createAuthenticator({ apiKeys: keys });
    const seen: unknown[] = [];
    const spies = (['get', 'set', 'has'] as const).map((method) => {
      const original = Map.prototype[method] as (...args: unknown[]) => unknown;
      return vi.spyOn(Map.prototype, method).mockImplementation(function (
        this: Map<unknown, unknown>,
        ...args: unknown[]
      ) {
        seen.push(args[0]);
        return original.apply(this, args);
      });
    });
    try {
      for (let round = 0; round < 3; round++) {
        for (const key of keys) {
          expect(authenticate({ authorization: `Bearer ${key}` })).toMatchObject({
            kind: 'principal',
          });
        }
        expect(authenticate({ authorization: 'Bearer key-one-5f0c2a9e7d1c' })).toMatchObject({
          kind: 'error',
        });
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    // The cache was used (the answers above came from it after the first round)...
    expect(seen.length).toBeGreaterThan(0);
    // ...and none of its lookups carried a key, a token or a header.
    const leaked = seen.filter(
      (value) => typeof value === 'string' && (value.includes('key-') || value.includes('Bearer')),
    );
    expect(leaked).toEqual([]);
  });

  it('holds at most four spellings per key, and never a refused header', () => {
    const authenticate = createAuthenticator({ apiKeys: ['only-key-5f0c2a9e'] });
    const stored: unknown[] = [];
    const original = Map.prototype.set;
    const spy = vi.spyOn(Map.prototype, 'set').mockImplementation(function (
      this: Map<unknown, unknown>,
      key: unknown,
      value: unknown,
    ) {
      stored.push(key);
      return original.call(this, key, value);
    });
    try {
      for (let spaces = 1; spaces <= 10; spaces++) {
        const spelling = `Bearer${' '.repeat(spaces)}only-key-5f0c2a9e`;
        expect(authenticate({ authorization: spelling })).toMatchObject({ kind: 'principal' });
        expect(authenticate({ authorization: `${spelling}x` })).toMatchObject({ kind: 'error' });
      }
    } finally {
      spy.mockRestore();
    }
    expect(stored).toHaveLength(4);
  });
});
