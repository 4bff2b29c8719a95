/** The request headers an answer depends on, by lower-case name (Node's `req.headers` fits). */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** A plain answer for the host to write: status, headers and the bytes of the body. */
export interface ApiReferenceAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Empty for HEAD, 304 and 405: never encoded or copied per request. */
  readonly body: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** Headers every answer carries: no MIME sniffing, no referrer leaking the page's URL. */
export const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

/** An answer with no body (the headers say what a GET would have sent). */
export const bodiless = (status: number, headers: Readonly<Record<string, string>>) =>
  Object.freeze({ status, headers: Object.freeze({ ...headers }), body: EMPTY });

/** A small JSON error, as every error of the pet store looks. */
export function errorAnswer(
  status: number,
  code: string,
  message: string,
  extra: Readonly<Record<string, string>> = {},
): ApiReferenceAnswer {
  const body = Buffer.from(JSON.stringify({ code, message, status }));
  return Object.freeze({
    status,
    headers: Object.freeze({
      ...COMMON_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.byteLength),
      'cache-control': 'no-store',
      ...extra,
    }),
    body,
  });
}
