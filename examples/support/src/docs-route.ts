import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { requestIdOf as requestIdFromHeaders } from '@petstore/core';
import type { HostAnswer } from './host-routes.js';
import { type Logger, logRequest } from './logging.js';

/** Where the API reference lives, outside the API's base path. */
export const DOCS_PATH = '/docs';

/** `GET /docs` and the two scripts it loads, all served by the app itself. */
export interface DocsRoutes {
  /** Every path it answers (exactly; a query is ignored). */
  readonly paths: readonly string[];
  /** The answer for a path under `/docs`, or undefined when there is none (the host's 404). */
  answer(
    path: string,
    requestIdHeader: string | readonly string[] | undefined,
  ): HostAnswer | undefined;
}

export interface DocsRoutesOptions {
  /** Where the API is mounted: the page reads `<basePath>/openapi.json`. */
  readonly basePath: string;
  readonly logger: Logger;
}

const require = createRequire(import.meta.url);

/**
 * Only this origin, for everything: the page can load no font, script or style from a CDN,
 * and the browser reports any attempt. Scalar injects its styles as <style> elements.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const page = (bundleHash: string): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Pet store API reference</title>
    <!-- No favicon.ico request: the service has none. -->
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="app"></div>
    <script src="${DOCS_PATH}/scalar.js?v=${bundleHash}"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;

// Scalar's defaults reach out: fonts from its CDN, an AI agent on localhost, a proxy for the
// request client. Each is switched off; "Test request" goes to this very service.
const init = (basePath: string): string => `Scalar.createApiReference('#app', {
  url: ${JSON.stringify(`${basePath}/openapi.json`)},
  servers: [{ url: window.location.origin + ${JSON.stringify(basePath)}, description: 'This service' }],
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: 'never',
  // A short API: every operation listed, none behind a click.
  defaultOpenAllTags: true,
});
`;

const common = (requestId: string): Record<string, string> => ({
  'x-request-id': requestId,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
});

/**
 * An HTML reference of the served OpenAPI document, rendered in the browser by Scalar's
 * standalone bundle, which is read once from the installed `@scalar/api-reference` package.
 */
export function createDocsRoutes({ basePath, logger }: DocsRoutesOptions): DocsRoutes {
  const bundle = readFileSync(
    require.resolve('@scalar/api-reference/browser/standalone.js'),
    'utf8',
  );
  // The page asks for the bundle by a hash of its content, so the script can be cached.
  const html = page(createHash('sha256').update(bundle).digest('hex').slice(0, 16));
  const script = init(basePath);
  const files: Readonly<Record<string, (requestId: string) => HostAnswer>> = {
    [DOCS_PATH]: (requestId) => ({
      status: 200,
      headers: {
        ...common(requestId),
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-cache',
        'content-security-policy': CONTENT_SECURITY_POLICY,
      },
      body: html,
    }),
    [`${DOCS_PATH}/scalar.js`]: (requestId) => ({
      status: 200,
      headers: {
        ...common(requestId),
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=86400',
      },
      body: bundle,
    }),
    [`${DOCS_PATH}/init.js`]: (requestId) => ({
      status: 200,
      headers: {
        ...common(requestId),
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'no-cache',
      },
      body: script,
    }),
  };
  return {
    paths: Object.keys(files),
    answer(path, header) {
      const serve = files[path];
      if (serve === undefined) return undefined;
      const started = performance.now();
      const requestId = requestIdFromHeaders({ 'x-request-id': header });
      const result = serve(requestId);
      const durationMs = performance.now() - started;
      logRequest(logger, { method: 'GET', route: path, status: 200, durationMs, requestId });
      return result;
    },
  };
}
