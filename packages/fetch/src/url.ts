/**
 * Path and raw query of an absolute URL, as the request carries them: no
 * decoding and no `new URL()`, so the core judges the query values as sent.
 */
export function splitUrl(url: string): { readonly path: string; readonly query: string } {
  const scheme = url.indexOf('://');
  const pathAt = scheme === -1 ? 0 : url.indexOf('/', scheme + 3);
  if (pathAt === -1) return { path: '/', query: '' };
  const hashAt = url.indexOf('#', pathAt);
  const target = hashAt === -1 ? url.slice(pathAt) : url.slice(pathAt, hashAt);
  const queryAt = target.indexOf('?');
  return queryAt === -1
    ? { path: target, query: '' }
    : { path: target.slice(0, queryAt), query: target.slice(queryAt + 1) };
}
