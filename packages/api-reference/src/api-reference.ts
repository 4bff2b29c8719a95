import { checkPath, createMount, DEFAULT_API_PATH, type Handler } from '@petstore/core';
import { type ScalarBundle, scalarBundle } from './bundle.js';
import { contentHash } from './hash.js';
import { CODINGS } from './manifest.js';
import { CONTENT_SECURITY_POLICY, initScript, pageHtml } from './page.js';
import { type ServedFile, servedFile } from './served-file.js';

export interface ApiReferenceOptions {
  /**
   * Where the API is, as clients see it (the pet store's `/v1`): the page's "Test request" sends
   * requests to this path on the page's own origin. Default `/v1`; `''` for an API at the root.
   */
  readonly publicPath?: string;
  /** The OpenAPI document the page shows, a path on the same origin. Default `<publicPath>/openapi.json`. */
  readonly openApiUrl?: string;
  /** The page's `<title>`. Default `API reference`. */
  readonly title?: string;
  /** Where the mounts serve the page (their mount path); its scripts are below it. Default `/docs`. */
  readonly path?: string;
  /** @internal For tests: where the built assets are. */
  readonly assetsDir?: string;
}

/**
 * The page and its scripts as a `Handler`, mounted like a pet store by any adapter
 * (`@petstore/express`, `hapi`, `fastify`, `node`, `fetch`): a request's `path` is below the mount
 * (`/` the page, then its scripts), and its `publicPath`, where the mount is as the client sees it,
 * is where the page points its scripts.
 */
export interface ApiReference extends Handler {
  /** The `path` option: the mount path the one-line mounts give their adapter. */
  readonly path: string;
  /** Every path it answers below its mount: the page (`/`), then its scripts. */
  readonly paths: readonly string[];
}

/** A configured path, checked as every path option of the project is (`checkPath`); `''` is the root. */
function checkedPath(name: string, value: string, rootAllowed: boolean): string {
  const path = checkPath(value, name);
  if (path === '' && !rootAllowed) {
    throw new TypeError(
      `${name} must be a path below the root, like /docs; got ${JSON.stringify(value)}`,
    );
  }
  return path;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** Scalar's bundle, as built: plain, then br, then gzip. */
const bundleFile = (bundle: ScalarBundle): ServedFile =>
  servedFile({
    contentType: JAVASCRIPT,
    cacheControl: IMMUTABLE,
    hash: bundle.hash,
    bodies: [
      ...CODINGS.map((coding) => [coding, bundle.coded[coding]] as const),
      ['identity', bundle.plain],
    ],
  });

/** A small text file made here, once: too small for compression to pay. */
const textFile = (
  text: string,
  contentType: string,
  cacheControl: string,
  headers?: Readonly<Record<string, string>>,
) => {
  const body = Buffer.from(text);
  const hash = contentHash(body);
  return {
    hash,
    served: servedFile({
      contentType,
      cacheControl,
      hash,
      bodies: [['identity', body]],
      ...(headers === undefined ? {} : { headers }),
    }),
  };
};

/** The page for each public path it is served at (one, nearly always): bounded all the same. */
const PAGES_KEPT = 16;

/**
 * The API reference page of an OpenAPI document: Scalar's standalone bundle, served from the
 * installed package under a strict CSP. Everything is read or built here, once (the page once per
 * public path it is seen at); an answer is only picked per request. Its scripts have
 * content-hashed names, cached for a year (`immutable`); the page itself is revalidated
 * (`no-cache`), so a new version shows at once. Any other path below the mount is the pet
 * store's JSON 404.
 */
export function createApiReference(options: ApiReferenceOptions = {}): ApiReference {
  const publicPath = checkedPath('publicPath', options.publicPath ?? DEFAULT_API_PATH, true);
  const path = checkedPath('path', options.path ?? '/docs', false);
  const openApiUrl = checkedPath(
    'openApiUrl',
    options.openApiUrl ?? `${publicPath}/openapi.json`,
    false,
  );
  const title = options.title ?? 'API reference';
  const bundle = scalarBundle(options.assetsDir);
  const init = textFile(initScript(openApiUrl, publicPath), JAVASCRIPT, IMMUTABLE);
  const scripts = new Map<string, ServedFile>([
    [`/${bundle.file}`, bundleFile(bundle)],
    [`/init.${init.hash}.js`, init.served],
  ]);
  const pages = new Map<string, ServedFile>();
  /** The page where clients see it: its scripts named by their full path below it. */
  const pageAt = (pagePath: string): ServedFile => {
    let page = pages.get(pagePath);
    if (page === undefined) {
      const sources = [...scripts.keys()].map((script) => `${pagePath}${script}`);
      page = textFile(pageHtml(title, sources), 'text/html; charset=utf-8', 'no-cache', {
        'content-security-policy': CONTENT_SECURITY_POLICY,
      }).served;
      if (pages.size >= PAGES_KEPT) pages.clear();
      pages.set(pagePath, page);
    }
    return page;
  };
  const { outside } = createMount();
  return {
    path,
    paths: Object.freeze(['/', ...scripts.keys()]),
    handle(request) {
      const file =
        request.path === '/' ? pageAt(request.publicPath ?? path) : scripts.get(request.path);
      return Promise.resolve(file === undefined ? outside : file(request.method, request.headers));
    },
  };
}
