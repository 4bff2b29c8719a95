import { timingSafeEqual } from 'node:crypto';
import { type ApiError, apiError } from '../http/errors.js';
import type { RequestHeaders } from '../http/messages.js';
import { type ApiKey, digest, type ListedKey, listKeys, scopeOf } from './api-keys.js';
import { bearerToken, unauthorized } from './bearer.js';
import { VerifiedHeaders } from './verified-headers.js';

/**
 * Who sent the request. `id` scopes Idempotency-Keys: `id:<id>` for a key
 * listed with an id or a principal id from `verify`, else a digest of the
 * token (never the token itself).
 */
export interface Principal {
  readonly kind: 'principal';
  readonly id: string;
  /** `id` is a digest of the API key: the stored scope is derived from it (see scope.ts). */
  readonly derivedFromKey?: true;
}

/**
 * Your own key check: `true` accepts (Idempotency-Keys are then scoped by a
 * digest of the token), a non-empty string accepts and names the principal
 * (the scope is then that id), anything else refuses. Throwing, rejecting or
 * not settling within `verifyTimeoutMs` answers 503.
 */
export type Verify = (token: string) => boolean | string | Promise<boolean | string>;

/** The key check failed (threw, rejected or timed out): the client gets a 503, `onError` the cause. */
export interface AuthUnavailable {
  readonly kind: 'auth_unavailable';
  readonly error: ApiError;
  readonly cause: unknown;
}

export type Authenticate = (
  headers: RequestHeaders,
) => Principal | ApiError | AuthUnavailable | Promise<Principal | ApiError | AuthUnavailable>;

const DEFAULT_VERIFY_TIMEOUT_MS = 5000;

const unavailable = (cause: unknown): AuthUnavailable => ({
  kind: 'auth_unavailable',
  cause,
  error: apiError(
    'service_unavailable',
    'The API key could not be checked right now; retry later.',
    { headers: { 'retry-after': '1' } },
  ),
});

export const isAuthUnavailable = (value: unknown): value is AuthUnavailable =>
  (value as { kind?: unknown } | undefined)?.kind === 'auth_unavailable';

/** Settles with what `verify` said, or with `unavailable` when it threw, rejected or took too long. */
function runVerify(
  verify: Verify,
  token: string,
  timeoutMs: number,
): Promise<boolean | string | AuthUnavailable> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => resolve(unavailable(new Error(`verify(token) did not settle within ${timeoutMs} ms`))),
      timeoutMs,
    );
    // A timer must not keep a host process alive that is otherwise done.
    (timer as { unref?: () => void }).unref?.();
    const settle = (value: boolean | string | AuthUnavailable) => {
      clearTimeout(timer);
      resolve(value);
    };
    try {
      Promise.resolve(verify(token)).then(settle, (error: unknown) => settle(unavailable(error)));
    } catch (error) {
      settle(unavailable(error));
    }
  });
}

/**
 * Builds the key check. Listed keys are compared as SHA-256 digests with
 * `timingSafeEqual`, against every key without stopping early, so timing
 * reveals neither a key's content nor its position.
 */
export function createAuthenticator(options: {
  apiKeys?: readonly ApiKey[] | undefined;
  verify?: Verify | undefined;
  verifyTimeoutMs?: number | undefined;
}): Authenticate {
  const { apiKeys, verify } = options;
  if (apiKeys === undefined && verify === undefined) {
    throw new TypeError(
      'createPetStore needs `apiKeys` or `verify`: without them no request could authenticate',
    );
  }
  const timeoutMs = options.verifyTimeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2_147_483_647) {
    throw new TypeError(
      `verifyTimeoutMs must be an integer from 1 to 2147483647, got ${String(timeoutMs)}`,
    );
  }
  const listed = apiKeys === undefined ? [] : listKeys(apiKeys);
  const match = (tokenDigest: Buffer): ListedKey | undefined => {
    let found: ListedKey | undefined;
    for (const key of listed) if (timingSafeEqual(key.digest, tokenDigest)) found ??= key;
    return found;
  };
  const principal = (id: string): Principal => ({ kind: 'principal', id });
  const keyPrincipal = (digest: Buffer): Principal => ({
    kind: 'principal',
    id: digest.toString('base64url'),
    derivedFromKey: true,
  });
  // Headers whose token matched a listed key, so a client's next request skips
  // parsing and the comparison against every key: keyed by the header's digest,
  // never its bytes (see VerifiedHeaders), at most a few spellings per key.
  const verified = new VerifiedHeaders<Principal>(4 * listed.length);

  return (headers) => {
    const header = headers.authorization;
    const headerDigest =
      typeof header === 'string' && listed.length > 0 ? VerifiedHeaders.digest(header) : undefined;
    if (headerDigest !== undefined) {
      const known = verified.get(headerDigest);
      if (known !== undefined) return known;
    }
    const token = bearerToken(headers);
    if (token === undefined) return unauthorized(false);
    const tokenDigest = digest(token);
    const found = match(tokenDigest);
    if (found !== undefined) {
      const listedPrincipal =
        found.scope === undefined ? keyPrincipal(tokenDigest) : principal(found.scope);
      if (headerDigest !== undefined) verified.remember(headerDigest, listedPrincipal);
      return listedPrincipal;
    }
    if (verify === undefined) return unauthorized(true);
    return runVerify(verify, token, timeoutMs).then((said) => {
      if (isAuthUnavailable(said)) return said;
      if (said === true) return keyPrincipal(tokenDigest);
      return typeof said === 'string' && said !== ''
        ? principal(scopeOf(said))
        : unauthorized(true);
    });
  };
}
