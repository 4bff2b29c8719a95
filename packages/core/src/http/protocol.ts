import { type ApiError, apiError } from './errors.js';
import type { RequestHeaders } from './messages.js';

/**
 * The methods Node's HTTP parser takes (`http.METHODS`); it refuses any other
 * with a 400 before a server sees the request. Hosts that pass other methods
 * on (the fetch runtimes) refuse them the same way, for one answer everywhere.
 */
const KNOWN_METHODS: ReadonlySet<string> = new Set(
  'ACL BIND CHECKOUT CONNECT COPY DELETE GET HEAD LINK LOCK M-SEARCH MERGE MKACTIVITY MKCALENDAR MKCOL MOVE NOTIFY OPTIONS PATCH POST PROPFIND PROPPATCH PURGE PUT QUERY REBIND REPORT SEARCH SOURCE SUBSCRIBE TRACE UNBIND UNLINK UNLOCK UNSUBSCRIBE'.split(
    ' ',
  ),
);

/** A Host value a URL can be made of: a name or IPv4 address, or an IPv6 literal, and a port. */
const PLAIN_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Whether a URL can be made with this Host as it is (what a fetch host builds its URL with). */
export function isUsableHost(value: string): boolean {
  if (PLAIN_HOST.test(value)) return true;
  try {
    const { hostname } = new URL(`http://${value}/`);
    return hostname === value.replace(/:\d+$/, '').toLowerCase();
  } catch {
    return false;
  }
}

const header = (headers: RequestHeaders, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.join(', ');
};

/**
 * What the HTTP layer refuses before any route, for hosts whose server passes
 * such requests on (Node's own refusals are `installClientErrorHandler`'s in
 * `@petstore/node`): a method Node's parser does not know, `CONNECT`, an
 * unusable `Host` (two Host headers read as one: `a, b`), and an `Expect`
 * other than `100-continue`.
 */
export function protocolRefusal(method: string, headers: RequestHeaders): ApiError | undefined {
  if (!KNOWN_METHODS.has(method)) {
    return apiError('invalid_request', 'The request is not valid HTTP/1.1.');
  }
  if (method === 'CONNECT') {
    return apiError('invalid_request', 'CONNECT is not supported: this server is not a proxy.');
  }
  // A missing Host is the HTTP layer's to refuse (Node's); a fetch Request may well have none.
  const host = header(headers, 'host');
  if (host !== undefined && !isUsableHost(host)) {
    return apiError('invalid_request', 'The Host header is not a host name or address.');
  }
  const expect = header(headers, 'expect');
  if (expect !== undefined && expect.toLowerCase() !== '100-continue') {
    return apiError('expectation_failed', 'The only expectation met is "Expect: 100-continue".');
  }
  return undefined;
}
