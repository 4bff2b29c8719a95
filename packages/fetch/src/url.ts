import { readTarget } from '@petstore/core';

/**
 * Path and raw query of an absolute URL, as a URL parser reads them (`.`/`..`
 * segments resolved, as `readTarget` does for every host) and no further: no
 * decoding, so the core judges the query values as sent. The URL's own parse is
 * skipped for the usual targets.
 */
export function splitUrl(url: string): { readonly path: string; readonly query: string } {
  const scheme = url.indexOf('://');
  const pathAt = scheme === -1 ? 0 : url.indexOf('/', scheme + 3);
  if (pathAt === -1) return { path: '/', query: '' };
  const hashAt = url.indexOf('#', pathAt);
  const target = readTarget(hashAt === -1 ? url.slice(pathAt) : url.slice(pathAt, hashAt));
  const queryAt = target.indexOf('?');
  return queryAt === -1
    ? { path: target, query: '' }
    : { path: target.slice(0, queryAt), query: target.slice(queryAt + 1) };
}
