import type { HandlerResponse } from '@petstore/core';

/** The request headers an answer depends on, by lower-case name (Node's `req.headers` fits). */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Headers every answer carries: no MIME sniffing, no referrer leaking the page's URL. */
export const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

/** An answer with no body (the headers say what a GET would have sent). */
export const bodiless = (
  status: number,
  headers: Readonly<Record<string, string>>,
): HandlerResponse =>
  Object.freeze({ status, headers: Object.freeze({ ...headers }), body: undefined });

/** A small JSON error, as every error of the pet store looks. */
export function errorAnswer(
  status: number,
  code: string,
  message: string,
  extra: Readonly<Record<string, string>> = {},
): HandlerResponse {
  return Object.freeze({
    status,
    headers: Object.freeze({
      ...COMMON_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      ...extra,
    }),
    body: JSON.stringify({ code, message, status }),
  });
}
