import { PetStoreError } from './errors.js';

/**
 * The target of the `rel="next"` link in an RFC 8288 `Link` header, or undefined. Handles
 * several links in one header, quoted or bare `rel`, and relation lists (`rel="next last"`).
 */
export function nextLink(header: string | null): string | undefined {
  if (header === null) return undefined;
  // `<target>; params` entries; a target cannot hold `>`, so this split is safe.
  for (const match of header.matchAll(/<([^>]*)>([^<]*)/g)) {
    const params = match[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return match[1];
  }
  return undefined;
}

/**
 * The page's `rel="next"` link resolved against the page's own URL, or undefined on the last
 * page. A target that is no URL (`<http://[bad/v1>`) is no answer of the service's: it throws
 * `unexpected_response`, never the `TypeError` of `new URL`.
 */
export function nextPage(operation: string, response: Response, pageUrl: string): URL | undefined {
  const target = nextLink(response.headers.get('link'));
  if (target === undefined) return undefined;
  try {
    return new URL(target, pageUrl);
  } catch (error) {
    throw new PetStoreError({
      status: response.status,
      code: 'unexpected_response',
      message: `${operation}: the answer's Link header names a next page that is not a URL`,
      requestId: response.headers.get('x-request-id') ?? undefined,
      cause: error,
    });
  }
}

/** Origin and path of a URL for a message: no credentials, no query (it may carry anything). */
const shown = (url: URL) => `${url.origin}${url.pathname}`;

/**
 * Checks each next link of one walk before it is followed, and returns it. The key goes with
 * it, so it must lead exactly where the first page was fetched from: the same origin (scheme,
 * host, port, no credentials) and, byte for byte, the same path (`<base>/pets`,
 * `<base>/store/orders`); only the query may differ. `URL` has already resolved dot segments
 * and backslashes, and escaped controls and non-ASCII, as `fetch` sends it; a path equal to
 * the one the walk started from is then read the same as it by any server, however it decodes
 * (percent-decoding, NFKC, `;` parameters, NUL), and anything else is refused:
 * `/v1/%252e%252e%252fadmin`, `/v1/pets/..%00/admin`, `/v1/pets/\uFF0E\uFF0E/admin`,
 * `/v1//pets`, `/v1/pets;x`. It must also be new, and follow a page with items, or the walk is
 * not advancing; and there may be `maxPages` pages at most. Anything else ends the walk with a
 * PetStoreError, before any request.
 */
export function pagingGuard(
  operation: string,
  first: string,
  maxPages: number,
): (next: URL | undefined, items: number) => string | undefined {
  const own = new URL(first);
  const seen = new Set([own.href]);
  const refuse = (code: string, message: string) =>
    new PetStoreError({ status: 0, code, message: `${operation}: ${message}` });
  const untrusted = (why: string) =>
    refuse(
      'untrusted_link',
      `${why}; not followed (the API key goes only to ${shown(own)} for this walk)`,
    );
  return (next, items) => {
    if (next === undefined) return undefined;
    if (next.username !== '' || next.password !== '') {
      throw untrusted(`the next page's link carries credentials (${shown(next)})`);
    }
    if (next.origin !== own.origin) {
      throw untrusted(`the next page is at ${shown(next)}, on another origin`);
    }
    if (next.pathname !== own.pathname) {
      throw untrusted(`the next page is at ${shown(next)}, not the path of ${operation}`);
    }
    if (seen.has(next.href))
      throw refuse('paging_loop', `the next page ${next.href} was fetched before`);
    if (items === 0)
      throw refuse('paging_loop', `an empty page links to a next one (${next.href})`);
    if (seen.size >= maxPages)
      throw refuse('too_many_pages', `more than ${maxPages} pages (maxPages)`);
    seen.add(next.href);
    return next.href;
  };
}
