import type { ApiKey } from '../auth/api-keys.js';
import type { Verify } from '../auth/auth.js';
import { checkPath, DEFAULT_API_PATH } from '../http/mount.js';
import type { PetStatus } from '../schemas/schemas.js';
import { NO_SCOPE_SECRET, type ScopeOptions } from '../storage/scope.js';
import type { PetStorage } from '../storage/storage.js';
import type { PetStoreHooks } from './hooks.js';

export interface ServerEntry {
  readonly url: string;
  readonly description?: string;
}

export interface DeprecationOptions {
  /** When getPet was deprecated (the `Deprecation` header). Default 2026-11-22T00:00:00Z. */
  readonly deprecatedAt?: Date | undefined;
  /** When getPet goes away (the `Sunset` header). Default 2030-12-05T00:00:00Z. */
  readonly sunsetAt?: Date | undefined;
}

export interface IdempotencyOptions {
  /** How long an Idempotency-Key is remembered. Default 24 hours. */
  readonly retentionMs?: number | undefined;
  /**
   * The HMAC key for the stored scope of Idempotency-Keys sent with an API key that has no id
   * (at least 16 characters; the same on every instance). Without it the scope is scrypt of
   * the key's digest: as safe in a database dump, but slow once per key and process.
   */
  readonly scopeSecret?: string | undefined;
  /**
   * After `scopeSecret` was set or changed: the secrets used before it (each at least 16
   * characters), and `'none'` if a setup without a secret came before. Claims written under
   * them are read too, so their keys still replay; new claims are written under `scopeSecret`
   * alone. Keep an entry for the retention window after the change (`retentionMs`, 24 hours
   * by default), then drop it.
   */
  readonly previousScopeSecrets?: readonly string[] | undefined;
}

/**
 * When a request is answered 503 at once instead of served (the README's "Load shedding").
 * A limit of 0 turns that one check off, as in `@fastify/under-pressure`.
 */
export interface LoadSheddingOptions {
  /**
   * Shed while the event loop runs more than this many milliseconds late. Default 1000: far
   * beyond any pause of a healthy server (its loop is late by single milliseconds, a major
   * garbage collection by tens), and already a second added to every waiting request.
   */
  readonly maxEventLoopDelayMs?: number | undefined;
  /**
   * Shed while the JavaScript heap in use (`process.memoryUsage().heapUsed`, where the host has
   * it) is over this many bytes. Default 0, off: only you know the heap's limit.
   */
  readonly maxHeapUsedBytes?: number | undefined;
  /**
   * Shed a request that arrives while this many are in flight: inside the store, from when
   * `handle` starts work on one until its answer is ready, whatever the operation, except while
   * it waits on its client's body (a create is counted again once its body is in, or shed if
   * the limit is full by then: slow senders cannot hold every place). Catches a
   * backlog the event loop never sees, such as requests queued for a PostgreSQL pool's
   * connections. Default 0, off: a safe limit depends on the storage's pool size, which the core
   * does not know; take a few times it (say 4 × the pool's connections).
   */
  readonly maxInFlight?: number | undefined;
  /** `Retry-After` of a shed answer, in seconds. Default 10 (under-pressure's). */
  readonly retryAfterSeconds?: number | undefined;
}

/** Load shedding's limits, checked; 0 turns a check off. */
export interface LoadLimits {
  readonly maxEventLoopDelayMs: number;
  readonly maxHeapUsedBytes: number;
  readonly maxInFlight: number;
  readonly retryAfterSeconds: number;
}

export interface PetStoreOptions {
  readonly storage: PetStorage;
  /**
   * Accepted API keys (compared in constant time): `'key'`, or `{ id, key }`
   * to scope Idempotency-Keys by the id instead of a digest of the key.
   * Give this or `verify`.
   */
  readonly apiKeys?: readonly ApiKey[] | undefined;
  /**
   * Your own key check, for keys kept elsewhere: `true` or a principal id
   * (a non-empty string) accepts. Give this or `apiKeys`. When it throws,
   * rejects or takes longer than `verifyTimeoutMs`, the answer is 503.
   */
  readonly verify?: Verify | undefined;
  /** How long `verify` may take before the answer is 503. Default 5000. */
  readonly verifyTimeoutMs?: number | undefined;
  /**
   * The public base of links (`Location`, `Link`) and of the served document
   * when a request does not say its own (adapters do). Default `/v1`.
   */
  readonly publicPath?: string | undefined;
  /** Base URLs shown in the OpenAPI document (production, staging). */
  readonly servers?: readonly ServerEntry[] | undefined;
  /** Status of a pet created without one. Default `available`. */
  readonly defaultStatus?: PetStatus | undefined;
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number | undefined;
  readonly deprecation?: DeprecationOptions | undefined;
  /** Serve `GET <base>/openapi.json` without auth. Default true. */
  readonly exposeOpenApi?: boolean | undefined;
  readonly idempotency?: IdempotencyOptions | undefined;
  readonly hooks?: PetStoreHooks | undefined;
  /**
   * Answer 503 `service_unavailable` with `Retry-After` at once, before authentication, a body
   * read or a storage call, while the event loop runs late (or the heap is full, or too many
   * requests are in flight) past a limit.
   * On by default: shed while the loop is over 1000 ms late, `Retry-After: 10`. `false` turns
   * it off.
   */
  readonly loadShedding?: false | LoadSheddingOptions | undefined;
}

export interface ResolvedOptions {
  readonly storage: PetStorage;
  readonly publicPath: string;
  readonly servers: readonly ServerEntry[];
  readonly defaultStatus: PetStatus;
  readonly maxBodyBytes: number;
  readonly deprecatedAt: Date;
  readonly sunsetAt: Date;
  readonly exposeOpenApi: boolean;
  readonly idempotencyRetentionMs: number;
  readonly idempotencyScopes: ScopeOptions;
  readonly hooks: PetStoreHooks;
  /** Undefined: no load shedding (`false`, or every limit 0). */
  readonly loadShedding: LoadLimits | undefined;
}

const DEFAULT_MAX_REQUEST_BODY_BYTES = 16 * 1024;
const DEFAULT_DEPRECATED_AT = new Date('2026-11-22T00:00:00Z');
const DEFAULT_IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const DEFAULT_SUNSET_AT = new Date('2030-12-05T00:00:00Z');
const DEFAULT_LOAD_LIMITS: LoadLimits = {
  maxEventLoopDelayMs: 1000,
  maxHeapUsedBytes: 0,
  maxInFlight: 0,
  retryAfterSeconds: 10,
};

export function resolveOptions(options: PetStoreOptions): ResolvedOptions {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new TypeError(
      `maxBodyBytes must be a positive integer, got ${String(options.maxBodyBytes)}`,
    );
  }
  const retentionMs = options.idempotency?.retentionMs ?? DEFAULT_IDEMPOTENCY_RETENTION_MS;
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 1) {
    throw new TypeError(
      `idempotency.retentionMs must be a positive integer, got ${String(retentionMs)}`,
    );
  }
  const scopeSecret = options.idempotency?.scopeSecret;
  if (scopeSecret !== undefined && !isScopeSecret(scopeSecret)) {
    throw new TypeError('idempotency.scopeSecret must be a string of at least 16 characters');
  }
  const previousScopeSecrets = resolvePreviousScopeSecrets(
    options.idempotency?.previousScopeSecrets,
  );
  const publicPath = checkPath(options.publicPath ?? DEFAULT_API_PATH, 'publicPath');
  return {
    storage: options.storage,
    publicPath,
    servers: options.servers ?? [],
    defaultStatus: options.defaultStatus ?? 'available',
    maxBodyBytes,
    deprecatedAt: options.deprecation?.deprecatedAt ?? DEFAULT_DEPRECATED_AT,
    sunsetAt: options.deprecation?.sunsetAt ?? DEFAULT_SUNSET_AT,
    exposeOpenApi: options.exposeOpenApi ?? true,
    idempotencyRetentionMs: retentionMs,
    idempotencyScopes: { scopeSecret, previousScopeSecrets },
    hooks: options.hooks ?? {},
    loadShedding: resolveLoadShedding(options.loadShedding),
  };
}

/** `loadShedding` checked: a limit is 0 (off) or positive, `Retry-After` whole seconds. */
function resolveLoadShedding(
  options: false | LoadSheddingOptions | undefined,
): LoadLimits | undefined {
  if (options === false) return undefined;
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError(
      `loadShedding must be false or an object of limits, got ${String(options as unknown)}`,
    );
  }
  const limit = (name: keyof LoadLimits, integer: boolean): number => {
    const value: unknown = options?.[name] ?? DEFAULT_LOAD_LIMITS[name];
    const fine =
      typeof value === 'number' &&
      value >= 0 &&
      (integer ? Number.isSafeInteger(value) : Number.isFinite(value));
    if (fine) return value;
    const kind = integer ? 'an integer' : 'a number';
    const off = name === 'retryAfterSeconds' ? '' : ' (0 turns this check off)';
    throw new TypeError(
      `loadShedding.${name} must be ${kind} of at least 0${off}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
    );
  };
  const limits = {
    maxEventLoopDelayMs: limit('maxEventLoopDelayMs', false),
    maxHeapUsedBytes: limit('maxHeapUsedBytes', true),
    maxInFlight: limit('maxInFlight', true),
    retryAfterSeconds: limit('retryAfterSeconds', true),
  };
  const off =
    limits.maxEventLoopDelayMs === 0 && limits.maxHeapUsedBytes === 0 && limits.maxInFlight === 0;
  return off ? undefined : limits;
}

const isScopeSecret = (secret: unknown): secret is string =>
  typeof secret === 'string' && [...secret].length >= 16;

/** `idempotency.previousScopeSecrets` checked, with `'none'` as `undefined` (the scrypt form). */
function resolvePreviousScopeSecrets(
  secrets: readonly string[] | undefined,
): readonly (string | undefined)[] {
  if (secrets === undefined) return [];
  if (!Array.isArray(secrets)) {
    throw new TypeError('idempotency.previousScopeSecrets must be an array');
  }
  return secrets.map((secret: unknown, index) => {
    if (secret === NO_SCOPE_SECRET) return undefined;
    if (isScopeSecret(secret)) return secret;
    throw new TypeError(
      `idempotency.previousScopeSecrets[${index}] must be '${NO_SCOPE_SECRET}' or a string of at least 16 characters`,
    );
  });
}
