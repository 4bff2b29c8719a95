import { createHmac, scrypt } from 'node:crypto';
import type { Principal } from '../auth/auth.js';

/** Under which scope a principal's Idempotency-Key claims are written, and which are read too. */
export interface ClaimScopes {
  readonly scope: string;
  readonly alsoScopes: readonly string[];
}

export interface ScopeOptions {
  /** `idempotency.scopeSecret`: the HMAC key for scopes derived from an API key. */
  readonly scopeSecret: string | undefined;
  /**
   * `idempotency.previousScopeSecrets`, resolved: the secrets used before this one, whose scopes
   * are read too; `undefined` for the scrypt form (a setup without a secret, `'none'`).
   */
  readonly previousScopeSecrets: readonly (string | undefined)[];
}

/** The entry of `idempotency.previousScopeSecrets` that stands for "no secret was set". */
export const NO_SCOPE_SECRET = 'none';

// scrypt's cost: a guess at a weak key costs an attacker with a database dump about as much
// as this costs us once per principal (cached below): tens of milliseconds.
const SCRYPT = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const SALT = 'petstore idempotency scope';
/** Derived scopes kept per process: a handful of API keys, bounded for `verify` principals. */
const CACHE_LIMIT = 1024;
const derivedScopes = new Map<string, Promise<string>>();

function slowScope(digest: string): Promise<string> {
  const cached = derivedScopes.get(digest);
  if (cached !== undefined) return cached;
  const derived = new Promise<string>((resolve, reject) =>
    scrypt(Buffer.from(digest, 'base64url'), SALT, 32, SCRYPT, (error, key) =>
      error ? reject(error) : resolve(`kdf:${key.toString('base64url')}`),
    ),
  );
  if (derivedScopes.size >= CACHE_LIMIT) {
    const oldest = derivedScopes.keys().next().value;
    if (oldest !== undefined) derivedScopes.delete(oldest);
  }
  derivedScopes.set(digest, derived);
  // A failure is not kept: the next request derives again.
  derived.catch(() => derivedScopes.delete(digest));
  return derived;
}

const hmacScope = (secret: string, digest: string): string =>
  `hmac:${createHmac('sha256', secret).update(digest).digest('base64url')}`;

/** A principal's scope under one secret, or in the scrypt form (`undefined`). */
const scopeUnder = (secret: string | undefined, digest: string): string | Promise<string> =>
  secret === undefined ? slowScope(digest) : hmacScope(secret, digest);

/** Scopes already worked out, per store's options and principal: the same every time. */
const knownScopes = new WeakMap<ScopeOptions, Map<string, ClaimScopes>>();

/**
 * The stored scope of a principal whose id is a digest of its API key: never that digest, which
 * would let a database dump test guesses at a weak key at SHA-256 speed. With `scopeSecret`,
 * an HMAC of the digest under it; without, scrypt of the digest (slow by design, once per
 * principal). Principals with an id of their own (`{ id, key }`, or an id from `verify`) are
 * scoped by that id, which says nothing about the key.
 *
 * Claims are written under the current form; the forms under `previousScopeSecrets` are read
 * too (`alsoScopes`), so a claim written before the secret was set or changed still replays.
 *
 * Worked out once per principal (up to 1,024 of them per store), then answered at once, with
 * no promise: a keyed create does not pay an HMAC and a wait each time.
 */
export function claimScopes(
  principal: Principal,
  options: ScopeOptions,
): ClaimScopes | Promise<ClaimScopes> {
  if (principal.derivedFromKey !== true) return { scope: principal.id, alsoScopes: [] };
  let known = knownScopes.get(options);
  if (known === undefined) {
    known = new Map();
    knownScopes.set(options, known);
  }
  const scopes = known.get(principal.id);
  if (scopes !== undefined) return scopes;
  const cache = known;
  return scopesOf(principal.id, options).then((derived) => {
    if (cache.size < CACHE_LIMIT) cache.set(principal.id, derived);
    return derived;
  });
}

async function scopesOf(digest: string, options: ScopeOptions): Promise<ClaimScopes> {
  const scope = await scopeUnder(options.scopeSecret, digest);
  const alsoScopes: string[] = [];
  for (const previous of options.previousScopeSecrets) {
    const older = await scopeUnder(previous, digest);
    if (older !== scope && !alsoScopes.includes(older)) alsoScopes.push(older);
  }
  return { scope, alsoScopes };
}
