import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPetStore, type IdempotencyClaim, type PetStoreOptions } from '../src/index.js';
import { arrayStorage } from './support/array-storage.js';

// What the core hands the storage as an Idempotency-Key claim's scope: never a plain digest of
// the API key (a database dump would let anyone test guesses at a weak key at SHA-256 speed).

const KEY = 'scope-test-key-0123456789';
const digest = createHash('sha256').update(KEY).digest('base64url');

/** The claim of one keyed create through a store with these options. */
async function claimOf(options: Partial<PetStoreOptions> = {}): Promise<IdempotencyClaim> {
  const storage = arrayStorage();
  const claims: IdempotencyClaim[] = [];
  const store = createPetStore({
    apiKeys: [KEY],
    ...options,
    storage: {
      ...storage,
      createPetIdempotent: (input, claim) => {
        claims.push(claim);
        return storage.createPetIdempotent(input, claim);
      },
    },
  });
  const answer = await store.handle({
    method: 'POST',
    path: '/pets',
    headers: {
      authorization: `Bearer ${options.verify === undefined ? KEY : 'verified-token-0123456789'}`,
      'content-type': 'application/json',
      'idempotency-key': 'k-1',
    },
    body: '{"name":"Rex","categoryId":1}',
  });
  expect(answer.status).toBe(201);
  const [claim] = claims;
  if (claim === undefined) throw new Error('no claim reached the storage');
  return claim;
}

describe('the scope of an Idempotency-Key claim', () => {
  it('with idempotency.scopeSecret: an HMAC of the key digest under it, the old digest read too', async () => {
    const secret = 'scope-secret-0123456789';
    const claim = await claimOf({ idempotency: { scopeSecret: secret } });
    expect(claim.scope).toBe(
      `hmac:${createHmac('sha256', secret).update(digest).digest('base64url')}`,
    );
    expect(claim.alsoScopes).toEqual([digest]);
  });

  it('without a secret: scrypt of the key digest (slow for a guesser), never the digest itself', async () => {
    const claim = await claimOf();
    expect(claim.scope).toMatch(/^kdf:[A-Za-z0-9_-]{43}$/);
    expect(claim.scope).not.toContain(digest);
    expect(claim.alsoScopes).toEqual([digest]);
    // Deterministic: every instance derives the same scope for the same key.
    expect((await claimOf()).scope).toBe(claim.scope);
  });

  it("legacyScopes: 'write' keeps writing the old scope during an upgrade, reading the new one too", async () => {
    const secret = 'scope-secret-0123456789';
    const claim = await claimOf({ idempotency: { scopeSecret: secret, legacyScopes: 'write' } });
    expect(claim.scope).toBe(digest);
    expect(claim.alsoScopes).toEqual([
      `hmac:${createHmac('sha256', secret).update(digest).digest('base64url')}`,
    ]);
  });

  it('a key with an id, or a principal id from verify, is scoped by the id alone', async () => {
    const listed = await claimOf({ apiKeys: [{ id: 'ops', key: KEY }] });
    expect([listed.scope, listed.alsoScopes]).toEqual(['id:ops', []]);
    const verified = await claimOf({ apiKeys: undefined, verify: () => 'svc' });
    expect([verified.scope, verified.alsoScopes]).toEqual(['id:svc', []]);
  });

  it('verify answering true: derived from the token like a listed key', async () => {
    const claim = await claimOf({ apiKeys: undefined, verify: () => true });
    expect(claim.scope).toMatch(/^kdf:/);
    expect(claim.alsoScopes).toEqual([
      createHash('sha256').update('verified-token-0123456789').digest('base64url'),
    ]);
  });

  it('refuses a short secret and an unknown legacyScopes value at start', () => {
    const start = (idempotency: PetStoreOptions['idempotency']) => () =>
      createPetStore({ storage: arrayStorage(), apiKeys: [KEY], idempotency });
    expect(start({ scopeSecret: 'short' })).toThrow(
      'idempotency.scopeSecret must be a string of at least 16 characters',
    );
    expect(start({ legacyScopes: 'both' as never })).toThrow("must be 'read' or 'write'");
  });
});
