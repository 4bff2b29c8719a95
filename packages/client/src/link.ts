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

/** The `cursor` query parameter of a next-page link, resolved against the page's own URL. */
export function cursorOf(link: string | undefined, base: string): string | undefined {
  if (link === undefined) return undefined;
  return new URL(link, base).searchParams.get('cursor') ?? undefined;
}

/**
 * What, in a path below the base path, a server may read as leaving it once it decodes the
 * path: a segment whose escapes decode to `/` or `\` (`..%2fadmin`, `..%5cadmin`), a `.` or
 * `..` segment (`URL` already resolves plain and `%2e` ones; `..;x` is read as `..` by some
 * servers), or an escape that is not UTF-8. Undefined when there is none.
 */
function escapeFromBase(below: string): string | undefined {
  for (const segment of below.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return `"${segment}" is not a valid escape`;
    }
    if (/[/\\]/.test(decoded)) return `"${segment}" decodes to "${decoded}"`;
    const name = decoded.split(';')[0];
    if (name === '.' || name === '..') return `"${segment}" is a "${name}" segment`;
  }
  return undefined;
}

/**
 * Checks each next link of one walk before it is followed, and returns it: it must stay under
 * `base` (same origin, path below the base path, also once that path is percent-decoded),
 * where the API key may go; it must be new, and follow a page with items, or the walk is not
 * advancing; and there may be `maxPages` pages at most. Anything else ends the walk with a
 * PetStoreError, before any request.
 */
export function pagingGuard(
  operation: string,
  base: string,
  first: string,
  maxPages: number,
): (next: string | undefined, items: number) => string | undefined {
  const root = new URL(`${base}/`);
  const seen = new Set([first]);
  const refuse = (code: string, message: string) =>
    new PetStoreError({ status: 0, code, message: `${operation}: ${message}` });
  return (next, items) => {
    if (next === undefined) return undefined;
    const url = new URL(next);
    if (url.origin !== root.origin || !url.pathname.startsWith(root.pathname)) {
      throw refuse(
        'untrusted_link',
        `the next page is at ${url.origin}${url.pathname}, outside ${base}; not followed (the API key goes only to ${base})`,
      );
    }
    // The base path is the caller's own; what the server adds below it must not climb out.
    const climbs = escapeFromBase(url.pathname.slice(root.pathname.length));
    if (climbs !== undefined) {
      throw refuse(
        'untrusted_link',
        `the next page ${url.origin}${url.pathname} may leave ${base} once decoded (${climbs}); not followed (the API key goes only to ${base})`,
      );
    }
    if (seen.has(url.href))
      throw refuse('paging_loop', `the next page ${url.href} was fetched before`);
    if (items === 0) throw refuse('paging_loop', `an empty page links to a next one (${url.href})`);
    if (seen.size >= maxPages)
      throw refuse('too_many_pages', `more than ${maxPages} pages (maxPages)`);
    seen.add(url.href);
    return url.href;
  };
}
