import { checkPath } from '@petstore/core';
import type { ApiReferenceAnswer, RequestHeaders } from './answer.js';
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
  /** Where the page is served; its scripts are below it. Default `/docs`. */
  readonly path?: string;
  /** @internal For tests: where the built assets are. */
  readonly assetsDir?: string;
}

/**
 * `(method, path, headers)`: the answer for the page or one of its scripts, or undefined for any
 * other path (the host's 404). `path` is the request's path as sent, without its query.
 */
export interface ApiReference {
  (method: string, path: string, headers: RequestHeaders): ApiReferenceAnswer | undefined;
  /** Every path it answers: the page, then its scripts. */
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

/**
 * The API reference page of an OpenAPI document: Scalar's standalone bundle, served from the
 * installed package under a strict CSP. Everything is read or built here, once; an answer is
 * only picked per request. Its scripts have content-hashed names, cached for a year
 * (`immutable`); the page itself is revalidated (`no-cache`), so a new version shows at once.
 */
export function createApiReference(options: ApiReferenceOptions = {}): ApiReference {
  const publicPath = checkedPath('publicPath', options.publicPath ?? '/v1', true);
  const path = checkedPath('path', options.path ?? '/docs', false);
  const openApiUrl = checkedPath(
    'openApiUrl',
    options.openApiUrl ?? `${publicPath}/openapi.json`,
    false,
  );
  const bundle = scalarBundle(options.assetsDir);
  const init = textFile(initScript(openApiUrl, publicPath), JAVASCRIPT, IMMUTABLE);
  const scripts = [`${path}/${bundle.file}`, `${path}/init.${init.hash}.js`] as const;
  const page = textFile(
    pageHtml(options.title ?? 'API reference', scripts),
    'text/html; charset=utf-8',
    'no-cache',
    { 'content-security-policy': CONTENT_SECURITY_POLICY },
  );
  const files = new Map<string, ServedFile>([
    [path, page.served],
    [scripts[0], bundleFile(bundle)],
    [scripts[1], init.served],
  ]);
  const reference = (method: string, requestPath: string, headers: RequestHeaders) =>
    files.get(requestPath)?.(method, headers);
  return Object.assign(reference, { paths: Object.freeze([...files.keys()]) });
}
