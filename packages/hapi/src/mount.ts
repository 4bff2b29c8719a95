/** Where the plugin is mounted: which paths are ours, and what the core sees of them. */
export interface Mount {
  /** The path below the prefix (`/pets`), or undefined when `path` is not under it. */
  below(path: string): string | undefined;
}

/** `caseSensitive` mirrors hapi's `router.isCaseSensitive`, so we claim exactly the paths it routes to us. */
export function mountAt(prefix: string, caseSensitive: boolean): Mount {
  const fold = caseSensitive ? (text: string) => text : (text: string) => text.toLowerCase();
  const folded = fold(prefix);
  return {
    below(path) {
      const under =
        fold(path).startsWith(folded) &&
        (path.length === prefix.length || path[prefix.length] === '/');
      return under ? path.slice(prefix.length) || '/' : undefined;
    },
  };
}

/** The path of a request target as sent: no query, no `scheme://authority` of an absolute-form target. */
export function targetPath(url = '/'): string {
  const end = url.indexOf('?');
  const path = end === -1 ? url : url.slice(0, end);
  return path.startsWith('/') ? path : path.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '') || '/';
}
