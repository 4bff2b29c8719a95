import type { PetStoreResponse } from './messages.js';

/** Every error code the API answers with, and its HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  malformed_json: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_key_in_use: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  internal_error: 500,
  service_unavailable: 503,
  // What a Node host's HTTP layer refuses before any route (installClientErrorHandler).
  request_timeout: 408,
  expectation_failed: 417,
  headers_too_large: 431,
  http_version_not_supported: 505,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * The most problems one Error body names in `details` (the contract's Errors): naming each of
 * thousands of unknown properties would make a cheap bad request an expensive answer.
 */
export const MAX_ERROR_DETAILS = 20;

export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

/** An error as a value: handlers return it, `errorResponse` turns it into the Error body. */
export interface ApiError {
  readonly kind: 'error';
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: readonly ErrorDetail[] | undefined;
  /** Headers this error needs (`Allow`, `WWW-Authenticate`, `Retry-After`). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

export const apiError = (
  code: ErrorCode,
  message: string,
  extra: { details?: readonly ErrorDetail[]; headers?: Readonly<Record<string, string>> } = {},
): ApiError => ({ kind: 'error', code, message, details: extra.details, headers: extra.headers });

export const isApiError = (value: unknown): value is ApiError =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'error';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Never sniffed as anything but JSON; an error is never stored by a cache. */
const ERROR_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
} as const;

/** The one place an error becomes a response. */
export function errorResponse(
  error: ApiError,
  extraHeaders?: Readonly<Record<string, string>>,
): PetStoreResponse {
  const status = ERROR_STATUS[error.code];
  const body =
    error.details === undefined
      ? { code: error.code, message: error.message, status }
      : { code: error.code, message: error.message, status, details: error.details };
  return {
    status,
    headers: {
      'content-type': JSON_CONTENT_TYPE,
      ...ERROR_HEADERS,
      ...error.headers,
      ...extraHeaders,
    },
    body: JSON.stringify(body),
  };
}
