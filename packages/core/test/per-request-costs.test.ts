import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../src/auth.js';
import { generateRequestId } from '../src/request-id.js';

describe('generated request ids', () => {
  it('are distinct RFC 9562 version 8 UUIDs', () => {
    const ids = Array.from({ length: 20_000 }, generateRequestId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 100)) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});

describe('the key check, once a token is verified', () => {
  const authenticate = createAuthenticator({ apiKeys: ['key-one', { id: 'ops', key: 'key-two' }] });

  it('answers a verified header again with the same principal, and still refuses others', () => {
    const first = authenticate({ authorization: 'Bearer key-two' });
    expect(first).toEqual({ kind: 'principal', id: 'id:ops' });
    expect(authenticate({ authorization: 'Bearer key-two' })).toEqual(first);
    expect(authenticate({ authorization: 'bearer   key-two ' })).toEqual(first);
    for (const other of ['Bearer key-two2', 'Bearer key-tw', 'Basic key-two', 'Bearer key-one ']) {
      const answer = authenticate({ authorization: other }) as { kind: string; code?: string };
      const expected = other === 'Bearer key-one ' ? 'principal' : 'error';
      expect([other, answer.kind]).toEqual([other, expected]);
    }
  });

  it('keeps the bearer parsing of the contract for unusual spellings', () => {
    expect(authenticate({ authorization: 'Bearer key-one\tx' })).toMatchObject({ kind: 'error' });
    expect(authenticate({ authorization: 'Bearer\tkey-one' })).toMatchObject({ kind: 'principal' });
    expect(authenticate({ authorization: 'Bearer key\u00a0one' })).toMatchObject({ kind: 'error' });
  });
});
