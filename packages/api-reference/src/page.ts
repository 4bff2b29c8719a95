/**
 * Only this origin, for everything: the page loads no font, script or style from elsewhere, and
 * the browser refuses (and reports) any attempt. Scalar injects its styles as <style> elements.
 */
export const CONTENT_SECURITY_POLICY = [
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

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** The page: Scalar's bundle, then the script that starts it (no inline script: the CSP has none). */
export const pageHtml = (title: string, scripts: readonly string[]): string => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(title)}</title>
    <!-- No favicon.ico request: nothing is served there. -->
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="app"></div>
${scripts.map((src) => `    <script src="${escapeHtml(src)}"></script>`).join('\n')}
  </body>
</html>
`;

/**
 * Starts Scalar on the page. Its defaults reach out: fonts from its CDN, an AI agent, telemetry;
 * each is switched off. "Test request" goes to this very origin, at the API's public path.
 */
export const initScript = (openApiUrl: string, publicPath: string): string =>
  `Scalar.createApiReference('#app', {
  url: ${JSON.stringify(openApiUrl)},
  servers: [{ url: window.location.origin + ${JSON.stringify(publicPath)}, description: 'This service' }],
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  showDeveloperTools: 'never',
  // Every operation listed, none behind a click.
  defaultOpenAllTags: true,
});
`;
