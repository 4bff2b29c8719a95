import type { Principal } from '../auth.js';
import type { ApiError } from '../errors.js';
import type { PetStoreRequest } from '../http.js';
import type { ResolvedOptions } from '../options.js';
import type { RawQuery } from '../query.js';

export interface RequestContext {
  readonly request: PetStoreRequest;
  readonly options: ResolvedOptions;
  /** Mount point for links: the request's own, else the option. */
  readonly basePath: string;
  readonly principal: Principal | undefined;
  /** Captured path segments of the matched route (still percent-encoded). */
  readonly pathParams: readonly string[];
  /** Values as sent, not decoded. */
  readonly query: RawQuery;
  /** This store's OpenAPI document, built once. */
  readonly openApiDocument: Readonly<Record<string, unknown>>;
}

export interface Reply {
  readonly kind: 'reply';
  readonly status: number;
  /** Serialised with JSON.stringify. */
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type HandlerResult = Reply | ApiError;
/** Sync when nothing is waited for (a refused request): no trip through the microtask queue. */
export type Handler = (context: RequestContext) => HandlerResult | Promise<HandlerResult>;

export const reply = (
  status: number,
  body: unknown,
  headers?: Readonly<Record<string, string>>,
): Reply =>
  headers === undefined
    ? { kind: 'reply', status, body }
    : { kind: 'reply', status, body, headers };
