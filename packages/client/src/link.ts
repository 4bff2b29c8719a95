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
