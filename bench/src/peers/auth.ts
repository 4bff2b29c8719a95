import { hash, timingSafeEqual } from 'node:crypto';

/** An accepted API key; `{ id, key }` scopes Idempotency-Keys by the holder's id instead. */
export type PeerApiKey = string | { readonly id: string; readonly key: string };

// The one-shot hash (Node 21.7+): no Hash object per request.
const sha256 = (text: string): Buffer => hash('sha256', text, 'buffer');

// RFC 6750: the scheme name is case-insensitive; the token is the rest, trimmed.
const BEARER = /^\s*bearer\s+(.*?)\s*$/i;

/**
 * What a request's Authorization header says: the Idempotency-Key scope of the key
 * it carries, `false` for a token sent but refused, `undefined` for no Bearer token.
 */
export type Verdict = string | false | undefined;

/**
 * The key check: SHA-256 digests compared with `timingSafeEqual` against every listed
 * key, without stopping early, so timing tells neither a key nor its position. Scopes
 * are worked out once here: `id:<id>`, or a digest of the key (never the key itself).
 */
export function keyChecker(
  apiKeys: readonly PeerApiKey[],
): (header: string | undefined) => Verdict {
  if (apiKeys.length === 0) throw new TypeError('apiKeys must list at least one key');
  const listed = apiKeys.map((entry) => {
    const key = typeof entry === 'string' ? entry : entry.key;
    if (key === '') throw new TypeError('an API key must not be empty');
    const digest = sha256(key);
    const scope =
      typeof entry === 'string' ? `key:${digest.toString('base64url')}` : `id:${entry.id}`;
    return { digest, scope };
  });
  return (header) => {
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (token === undefined || token === '') return undefined;
    const digest = sha256(token);
    let scope: string | undefined;
    for (const key of listed) if (timingSafeEqual(key.digest, digest)) scope ??= key.scope;
    return scope ?? false;
  };
}
