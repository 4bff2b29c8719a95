import type { PetStatus } from './schemas.js';
import type { PetStorage } from './storage.js';

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

export interface PetStoreOptions {
  readonly storage: PetStorage;
  /** Accepted API keys (compared in constant time). Give this or `verify`. */
  readonly apiKeys?: readonly string[] | undefined;
  /** Your own key check, for keys kept elsewhere. Give this or `apiKeys`. */
  readonly verify?: ((token: string) => boolean | Promise<boolean>) | undefined;
  /** Mount point used for links when a request does not say its own. Default `/v1`. */
  readonly basePath?: string | undefined;
  /** Base URLs shown in the OpenAPI document (production, staging). */
  readonly servers?: readonly ServerEntry[] | undefined;
  /** Status of a pet created without one. Default `available`. */
  readonly defaultStatus?: PetStatus | undefined;
  /** Largest accepted request body. Default 16 KiB. */
  readonly maxBodyBytes?: number | undefined;
  readonly deprecation?: DeprecationOptions | undefined;
  /** Serve `GET <base>/openapi.json` without auth. Default true. */
  readonly exposeOpenApi?: boolean | undefined;
}

export interface ResolvedOptions {
  readonly storage: PetStorage;
  readonly basePath: string;
  readonly servers: readonly ServerEntry[];
  readonly defaultStatus: PetStatus;
  readonly maxBodyBytes: number;
  readonly deprecatedAt: Date;
  readonly sunsetAt: Date;
  readonly exposeOpenApi: boolean;
}

export const DEFAULT_MAX_BODY_BYTES = 16 * 1024;
export const DEFAULT_DEPRECATED_AT = new Date('2026-11-22T00:00:00Z');
export const DEFAULT_SUNSET_AT = new Date('2030-12-05T00:00:00Z');

/** Trims a trailing slash; `''` and `/` both mean the root. */
export const normaliseBasePath = (path: string): string => {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
};

export function resolveOptions(options: PetStoreOptions): ResolvedOptions {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new TypeError(
      `maxBodyBytes must be a positive integer, got ${String(options.maxBodyBytes)}`,
    );
  }
  return {
    storage: options.storage,
    basePath: normaliseBasePath(options.basePath ?? '/v1'),
    servers: options.servers ?? [],
    defaultStatus: options.defaultStatus ?? 'available',
    maxBodyBytes,
    deprecatedAt: options.deprecation?.deprecatedAt ?? DEFAULT_DEPRECATED_AT,
    sunsetAt: options.deprecation?.sunsetAt ?? DEFAULT_SUNSET_AT,
    exposeOpenApi: options.exposeOpenApi ?? true,
  };
}
