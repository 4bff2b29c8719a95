import { errorResponse } from './errors.js';
import type { PetStoreResponse } from './messages.js';

/**
 * Where the API is unless a host says otherwise: the contract's `/v1`. The default public path of
 * links and the document, and the path the standalone service, the conformance suite and the
 * bench mount the API at. Every package takes it from here.
 */
export const DEFAULT_API_PATH = '/v1';

/** RFC 3986 path characters: nothing that could end a header value or a `<...>` link. */
const PATH_CHARACTERS = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;
/** A colon before the first slash reads as a scheme (`https:`): a URL, not a path. */
const SCHEME_LIKE = /^[^/]*:/;
const DOT_SEGMENT = /(?:^|\/)\.{1,2}(?:\/|$)/;

/**
 * The one check of a configured path (where an adapter is mounted, or the
 * public base of links): URL path characters only, no scheme or host (`//`),
 * no `.`/`..` segment. Trailing slashes are trimmed (`''` and `/` both mean the
 * root) and a leading one added. A `TypeError` naming `option` says what is wrong.
 */
function parsePath(path: unknown, option: string): string | TypeError {
  const shown = JSON.stringify(typeof path === 'string' ? path.slice(0, 100) : path);
  if (typeof path !== 'string' || !PATH_CHARACTERS.test(path)) {
    return new TypeError(
      `${option} must be a URL path (letters, digits, - . _ ~ ! $ & ' ( ) * + , ; = : @ / and %XX escapes), got ${shown}`,
    );
  }
  if (SCHEME_LIKE.test(path)) {
    return new TypeError(`${option} must be a path, not a URL, got ${shown}`);
  }
  if (DOT_SEGMENT.test(path)) {
    return new TypeError(`${option} must not have . or .. segments, got ${shown}`);
  }
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  const trimmed = path.slice(0, end);
  const based = trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  // `//host/...` in a Location is another host.
  if (based.startsWith('//')) {
    return new TypeError(`${option} must not start with //, got ${shown}`);
  }
  return based;
}

/** `parsePath` for configuration: throws what it would return. */
export function checkPath(path: unknown, option: string): string {
  const parsed = parsePath(path, option);
  if (parsed instanceof TypeError) throw parsed;
  return parsed;
}

/**
 * The rest of an origin-form `target` (path and query) below `mountPath`, or
 * undefined when the target is not under it: `/v1`, `/v1/…` and `/v1?…` are
 * under `/v1` (`''`, `/…`, `?…` are returned), `/v10` is not.
 */
function belowMount(target: string, mountPath: string, caseSensitive = true): string | undefined {
  const end = mountPath.length;
  const head = caseSensitive || end === 0 ? target : target.slice(0, end).toLowerCase();
  if (!head.startsWith(caseSensitive ? mountPath : mountPath.toLowerCase())) return undefined;
  const after = target.charCodeAt(end); // `/`, `?` or the end
  return target.length === end || after === 47 || after === 63 ? target.slice(end) : undefined;
}

/**
 * A target a URL parser reads as it is: a path of plain characters with no
 * `.`/`..` segment (no segment starts with `.`), and a plain query. Most
 * targets are; only the others pay for a `URL`.
 */
const AS_A_URL_READS_IT = /^(?:\/(?!\.)[\w\-~!$&'()*+,;=:@%.]*)+(?:\?[\w\-~!$&()*+,;=:@%/?.]*)?$/;
const ENCODED_DOT = /%2e/i;

/**
 * A request target (or a URL) as every fetch runtime reads it (the WHATWG URL
 * Standard), in origin form: an absolute-form target (`GET http://host/v1/pets
 * HTTP/1.1`, as sent to proxies) loses its `scheme://authority`; `.` and `..`
 * segments (`%2e` too) are resolved, `\` is `/`, and what the standard escapes
 * is escaped. So `/v1/./pets` is `/v1/pets` and `/v1/../pets` is `/pets` on
 * every host. A target no URL can be made of (`*`) is returned as it is.
 */
export function readTarget(target: string): string {
  if (AS_A_URL_READS_IT.test(target) && !ENCODED_DOT.test(target)) return target;
  const isPath = target.charCodeAt(0) === 47; /* / */
  if (!isPath && !/^https?:\/\//i.test(target)) return target;
  try {
    // Prefixed rather than resolved against a base: `//v1/pets` must stay a path.
    const parsed = new URL(isPath ? `http://host${target}` : target);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return target;
  }
}

/**
 * The path of a request target as `readTarget` reads it, without its query: what a host route
 * (a health check, a page) is matched against. Undefined for a target that is no path once read
 * (`*`, `http://[bad/v1`, another scheme).
 */
export function targetPath(target: string): string | undefined {
  const read = readTarget(target);
  if (read.charCodeAt(0) !== 47 /* / */) return undefined;
  const query = read.indexOf('?');
  return query === -1 ? read : read.slice(0, query);
}

/** Each public path a request may carry, parsed once: bounded, as values may come from requests. */
const parsedPublicPaths = new Map<string, string | TypeError>();
const PARSED_PUBLIC_PATHS_KEPT = 256;

/**
 * A request's `publicPath`, checked as `parsePath` checks it. A mount's own public path was
 * checked when the mount was made and is not parsed again; other values (a public path a
 * host works out per request) are parsed once each.
 */
export function checkedPublicPath(raw: string): string | TypeError {
  let parsed = parsedPublicPaths.get(raw);
  if (parsed === undefined) {
    parsed = parsePath(raw, 'publicPath');
    if (parsedPublicPaths.size >= PARSED_PUBLIC_PATHS_KEPT) parsedPublicPaths.clear();
    parsedPublicPaths.set(raw, parsed);
  }
  return parsed;
}

export interface MountOptions {
  /** Where the API is served (what the adapter strips from a target): `/v1`. Default `''`: every path. */
  readonly mountPath?: string | undefined;
  /**
   * Where clients see the API, for `Location`, `Link` and the document, when a proxy rewrites
   * the path. Default: where the API is mounted.
   */
  readonly publicPath?: string | undefined;
}

/** Where an adapter serves the API, checked once: the one answer to "is this request ours?". */
export interface Mount {
  readonly mountPath: string;
  /** The `publicPath` option, checked; undefined when not given (the mount is the public path). */
  readonly publicPath: string | undefined;
  /**
   * The rest of a request target (path and query) below the mount, read as a URL parser reads
   * it (see `readTarget`): `''`, `/…` or `?…`; undefined when the target is not ours.
   * `caseSensitive: false` asks what a router that folds case sends here (hapi's
   * `isCaseSensitive: false`); the API itself is matched case for case.
   */
  below(target: string, caseSensitive?: boolean): string | undefined;
  /**
   * The public path of a request whose host cut `outer` off its URL before the adapter saw
   * it (Express's `req.baseUrl`, Connect's mount): the option, else `outer` + the mount.
   */
  publicPathBelow(outer: string): string;
  /** The answer outside the mount, for hosts with no next handler: the JSON 404, no request id. */
  readonly outside: PetStoreResponse;
}

const OUTSIDE: PetStoreResponse = errorResponse({
  kind: 'error',
  code: 'not_found',
  message: 'Nothing is served at this path.',
});

/** `createMount({ mountPath: '/v1' })`; a `TypeError` naming the option for a path that is not one. */
export function createMount(options: MountOptions = {}): Mount {
  const mountPath = checkPath(options.mountPath ?? '', 'mountPath');
  const publicPath =
    options.publicPath === undefined ? undefined : checkPath(options.publicPath, 'publicPath');
  for (const checked of [mountPath, publicPath]) {
    if (checked !== undefined) parsedPublicPaths.set(checked, checked);
  }
  return {
    mountPath,
    publicPath,
    below: (target, caseSensitive = true) =>
      belowMount(readTarget(target), mountPath, caseSensitive),
    publicPathBelow: (outer) => publicPath ?? (outer === '' ? mountPath : outer + mountPath),
    outside: OUTSIDE,
  };
}
