import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createPetStore, type IdempotencyClaim, type PetStoreOptions } from '../src/index.js';
import { claimScopes } from '../src/storage/scope.js';
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

const SECRET = 'scope-secret-0123456789';
const OLD_SECRET = 'old-scope-secret-0123456789';
const hmacScope = (secret: string, of = digest) =>
  `hmac:${createHmac('sha256', secret).update(of).digest('base64url')}`;

describe('the scope of an Idempotency-Key claim', () => {
  it('with idempotency.scopeSecret: an HMAC of the key digest under it, nothing else read', async () => {
    const claim = await claimOf({ idempotency: { scopeSecret: SECRET } });
    expect(claim.scope).toBe(hmacScope(SECRET));
    expect(claim.alsoScopes).toEqual([]);
  });

  it('without a secret: scrypt of the key digest (slow for a guesser), never the digest itself', async () => {
    const claim = await claimOf();
    expect(claim.scope).toMatch(/^kdf:[A-Za-z0-9_-]{43}$/);
    expect(claim.scope).not.toContain(digest);
    expect(claim.alsoScopes).toEqual([]);
    // Deterministic: every instance derives the same scope for the same key.
    expect((await claimOf()).scope).toBe(claim.scope);
  });

  it('no claim carries a plain digest of the key, in scope or alsoScopes, whatever the options', async () => {
    const hex = createHash('sha256').update(KEY).digest('hex');
    for (const idempotency of [
      undefined,
      { scopeSecret: SECRET },
      { scopeSecret: SECRET, previousScopeSecrets: ['none', OLD_SECRET] },
      { previousScopeSecrets: [OLD_SECRET] },
    ]) {
      const claim = await claimOf({ idempotency });
      for (const scope of [claim.scope, ...(claim.alsoScopes ?? [])]) {
        expect(scope).not.toContain(digest);
        expect(scope).not.toContain(hex);
      }
    }
  });

  it("previousScopeSecrets: written under the current secret, read under each previous one and 'none' (the scrypt form)", async () => {
    const kdf = (await claimOf()).scope;
    const rotated = await claimOf({
      idempotency: { scopeSecret: SECRET, previousScopeSecrets: [OLD_SECRET, 'none'] },
    });
    expect(rotated.scope).toBe(hmacScope(SECRET));
    expect(rotated.alsoScopes).toEqual([hmacScope(OLD_SECRET), kdf]);
    // Back from a secret to none: the scrypt form written, the old secret's read.
    const dropped = await claimOf({ idempotency: { previousScopeSecrets: [OLD_SECRET] } });
    expect([dropped.scope, dropped.alsoScopes]).toEqual([kdf, [hmacScope(OLD_SECRET)]]);
    // The current secret listed again, or 'none' without a secret: nothing read twice.
    const same = await claimOf({
      idempotency: { scopeSecret: SECRET, previousScopeSecrets: [SECRET, OLD_SECRET, OLD_SECRET] },
    });
    expect(same.alsoScopes).toEqual([hmacScope(OLD_SECRET)]);
    expect((await claimOf({ idempotency: { previousScopeSecrets: ['none'] } })).alsoScopes).toEqual(
      [],
    );
  });

  it('a key with an id, or a principal id from verify, is scoped by the id alone', async () => {
    const idempotency = { scopeSecret: SECRET, previousScopeSecrets: ['none', OLD_SECRET] };
    const listed = await claimOf({ apiKeys: [{ id: 'ops', key: KEY }], idempotency });
    expect([listed.scope, listed.alsoScopes]).toEqual(['id:ops', []]);
    const verified = await claimOf({ apiKeys: undefined, verify: () => 'svc', idempotency });
    expect([verified.scope, verified.alsoScopes]).toEqual(['id:svc', []]);
  });

  it('verify answering true: derived from the token like a listed key', async () => {
    const token = createHash('sha256').update('verified-token-0123456789').digest('base64url');
    const claim = await claimOf({
      apiKeys: undefined,
      verify: () => true,
      idempotency: { scopeSecret: SECRET, previousScopeSecrets: [OLD_SECRET] },
    });
    expect([claim.scope, claim.alsoScopes]).toEqual([
      hmacScope(SECRET, token),
      [hmacScope(OLD_SECRET, token)],
    ]);
  });

  it('is worked out once per principal and store options: later creates get it at once, no promise', async () => {
    const options = { scopeSecret: SECRET, previousScopeSecrets: [OLD_SECRET] };
    const principal = { kind: 'principal', id: digest, derivedFromKey: true } as const;
    const first = claimScopes(principal, options);
    expect(first).toBeInstanceOf(Promise);
    const scopes = await first;
    expect(scopes).toEqual({ scope: hmacScope(SECRET), alsoScopes: [hmacScope(OLD_SECRET)] });
    expect(claimScopes(principal, options)).toBe(scopes);
    // Another store's options are worked out for themselves.
    const other = claimScopes(principal, { scopeSecret: OLD_SECRET, previousScopeSecrets: [] });
    expect(other).toBeInstanceOf(Promise);
    expect(await other).toEqual({ scope: hmacScope(OLD_SECRET), alsoScopes: [] });
  });

  it('refuses a short secret, and a previous entry that is neither a secret nor none, at start', () => {
    const start = (idempotency: PetStoreOptions['idempotency']) => () =>
      createPetStore({ storage: arrayStorage(), apiKeys: [KEY], idempotency });
    expect(start({ scopeSecret: 'short' })).toThrow(
      'idempotency.scopeSecret must be a string of at least 16 characters',
    );
    expect(start({ scopeSecret: SECRET, previousScopeSecrets: [OLD_SECRET, 'short'] })).toThrow(
      "idempotency.previousScopeSecrets[1] must be 'none' or a string of at least 16 characters",
    );
    expect(start({ previousScopeSecrets: ['NONE'] })).toThrow('previousScopeSecrets[0]');
    expect(start({ previousScopeSecrets: 'none' as never })).toThrow(
      'idempotency.previousScopeSecrets must be an array',
    );
  });
});
