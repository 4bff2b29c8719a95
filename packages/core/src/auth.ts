import { createHash, timingSafeEqual } from 'node:crypto';
import { type ApiError, apiError } from './errors.js';
import type { RequestHeaders } from './http.js';

/** Who sent the request: a digest of the token, never the token itself (idempotency keys are scoped by it). */
export interface Principal {
  readonly kind: 'principal';
  readonly id: string;
}

export type Authenticate = (headers: RequestHeaders) => Promise<Principal | ApiError>;

const REALM = 'Bearer realm="petstore"';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

const firstHeader = (value: string | readonly string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : value?.[0];

/** The bearer token, `undefined` when none was sent in the Bearer scheme. */
export function bearerToken(headers: RequestHeaders): string | undefined {
  const header = firstHeader(headers.authorization);
  if (header === undefined) return undefined;
  const match = /^\s*(\S+)(?:\s+(.*))?$/.exec(header);
  if (match?.[1]?.toLowerCase() !== 'bearer') return undefined;
  const token = match[2]?.trim();
  return token === undefined || token === '' ? undefined : token;
}

export const unauthorized = (tokenSent: boolean): ApiError =>
  apiError(
    'unauthorized',
    tokenSent ? 'The API key is not valid.' : 'Send your API key as "Authorization: Bearer <key>".',
    { headers: { 'www-authenticate': tokenSent ? `${REALM}, error="invalid_token"` : REALM } },
  );

/**
 * Builds the key check. Listed keys are compared as SHA-256 digests with
 * `timingSafeEqual`, against every key without stopping early, so timing
 * reveals neither a key's content nor its position.
 */
export function createAuthenticator(options: {
  apiKeys?: readonly string[] | undefined;
  verify?: ((token: string) => boolean | Promise<boolean>) | undefined;
}): Authenticate {
  const { apiKeys, verify } = options;
  if (apiKeys === undefined && verify === undefined) {
    throw new TypeError(
      'createPetStore needs `apiKeys` or `verify`: without them no request could authenticate',
    );
  }
  if (
    apiKeys !== undefined &&
    (apiKeys.length === 0 || apiKeys.some((key) => typeof key !== 'string' || key === ''))
  ) {
    throw new TypeError('`apiKeys` must be a non-empty list of non-empty strings');
  }
  const keyDigests = (apiKeys ?? []).map(digest);
  const matchesKey = (tokenDigest: Buffer): boolean => {
    let found = false;
    for (const keyDigest of keyDigests) found = timingSafeEqual(keyDigest, tokenDigest) || found;
    return found;
  };

  return async (headers) => {
    const token = bearerToken(headers);
    if (token === undefined) return unauthorized(false);
    const tokenDigest = digest(token);
    const accepted =
      matchesKey(tokenDigest) || (verify !== undefined && (await verify(token)) === true);
    return accepted
      ? { kind: 'principal', id: tokenDigest.toString('base64url') }
      : unauthorized(true);
  };
}
