import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sendHttp } from '@petstore/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH, chromiumAvailable, visitInChromium } from './browser.js';
import { killStartedApps, startApp, startListening } from './process.js';

export interface DocsSuiteOptions {
  /** For test titles and the screenshot's name: `Express`, `Hapi`. */
  readonly name: string;
  /** The app's directory (where `src/main.ts` is). */
  readonly appDir: string;
}

/** Test artifacts (gitignored): the screenshots of the reference page. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../../../.tmp/artifacts/', import.meta.url));

const KEY = 'docs-suite-key-0123456789';

interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly deprecated?: boolean;
}

const operationsOf = (document: { paths: Record<string, Record<string, Operation>> }) =>
  Object.values(document.paths).flatMap((item) => Object.values(item));

let skipNoticeShown = false;

/** What @petstore/api-reference built: its manifest names Scalar's bundle, as the page asks for it. */
async function builtBundle(): Promise<{ readonly path: string; readonly bytes: Buffer }> {
  const assets = join(
    dirname(createRequire(import.meta.url).resolve('@petstore/api-reference/package.json')),
    'dist/assets',
  );
  const manifest = JSON.parse(await readFile(join(assets, 'manifest.json'), 'utf8')) as {
    scalar: { file: string };
  };
  return {
    path: `/docs/${manifest.scalar.file}`,
    bytes: await readFile(join(assets, manifest.scalar.file)),
  };
}

/** GET /docs of one example app, over HTTP and in a real browser (Debian's Chromium). */
export function describeDocsPage({ name, appDir }: DocsSuiteOptions): void {
  afterAll(killStartedApps);

  describe(`the ${name} example app's API reference at /docs`, () => {
    it('serves the page and its scripts without a key, only from itself, under a strict CSP', async () => {
      const app = await startListening(appDir, { API_KEYS: KEY });
      const page = await sendHttp(app.origin, { method: 'GET', path: '/docs' });
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      // Every script and link on the page is a path on this service: no host named at all.
      const sources = [...page.body.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
      const built = await builtBundle();
      expect(sources).toEqual([
        'data:,',
        built.path,
        expect.stringMatching(/^\/docs\/init\.[0-9a-f]{16}\.js$/),
      ]);

      // The bundle @petstore/api-reference built, as it is: nothing comes from a CDN.
      const bundle = await sendHttp(app.origin, { method: 'GET', path: built.path });
      expect(bundle.status).toBe(200);
      expect(bundle.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(bundle.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(bundle.body === built.bytes.toString('utf8')).toBe(true);
      const etag = bundle.headers.etag ?? '';
      const again = await sendHttp(app.origin, {
        method: 'GET',
        path: built.path,
        headers: { 'if-none-match': etag },
      });
      expect([again.status, again.body, again.headers['x-request-id']]).toEqual([
        304,
        '',
        expect.any(String),
      ]);

      const init = await sendHttp(app.origin, { method: 'GET', path: sources[2] ?? '' });
      expect(init.body).toContain('"/v1/openapi.json"');
      expect(init.body).toContain('withDefaultFonts: false');

      const missing = await sendHttp(app.origin, { method: 'GET', path: '/docs/other.js' });
      expect([missing.status, JSON.parse(missing.body).code]).toEqual([404, 'not_found']);
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    });

    it('answers 404 at /docs with DOCS=off, and refuses a DOCS value that is not on or off', async () => {
      const app = await startListening(appDir, { API_KEYS: KEY, DOCS: 'off' });
      for (const path of ['/docs', (await builtBundle()).path]) {
        const answer = await sendHttp(app.origin, { method: 'GET', path });
        expect([path, answer.status]).toEqual([path, 404]);
      }
      const api = await sendHttp(app.origin, {
        method: 'GET',
        path: '/v1/pets',
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(api.status).toBe(200);
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);

      const bad = startApp(appDir, { DOCS: 'maybe' });
      expect(await bad.exited).toBe(1);
      expect(bad.output()).toContain('config: DOCS must be on or off, got "maybe"');
    });

    const browser = chromiumAvailable();
    if (!browser && !skipNoticeShown) {
      skipNoticeShown = true;
      console.warn(`No Chromium at ${CHROMIUM_PATH}: skipping the browser tests of /docs.`);
    }

    it.skipIf(!browser)(
      'renders every operation in headless Chromium, getPet struck through as deprecated, "Test Request" sending the key, with no console error, no CSP violation and no other host',
      async () => {
        const app = await startListening(appDir, { API_KEYS: KEY, SEED_PETS: '2' });
        const served = await sendHttp(app.origin, { method: 'GET', path: '/v1/openapi.json' });
        const pets = await sendHttp(app.origin, {
          method: 'GET',
          path: '/v1/pets',
          headers: { authorization: `Bearer ${KEY}` },
        });
        const [firstPet] = JSON.parse(pets.body) as { name: string }[];
        const operations = operationsOf(JSON.parse(served.body));
        expect(operations.map((operation) => operation.operationId)).toEqual(
          expect.arrayContaining(['listPets', 'createPet', 'getPet', 'listOrders']),
        );
        const screenshot = `${ARTIFACTS_DIR}docs-${name.toLowerCase()}.png`;
        const getPetShot = `${ARTIFACTS_DIR}docs-${name.toLowerCase()}-getpet.png`;
        const tryShot = `${ARTIFACTS_DIR}docs-${name.toLowerCase()}-test-request.png`;
        const struck: Record<string, boolean> = {};
        const tried: { authorization?: string | undefined; status?: number | undefined } = {};
        const getPet = operations.find((operation) => operation.operationId === 'getPet');

        // The last screenshot: the deprecated operation's own section, reached from the sidebar.
        const visit = await visitInChromium(`${app.origin}/docs`, getPetShot, async (page) => {
          for (const { operationId, summary } of operations) {
            const label = page.getByText(summary, { exact: true }).first();
            await label.waitFor({ state: 'visible', timeout: 30_000 });
            // Scalar strikes deprecated operations through; a person sees the line.
            struck[operationId] = await label.evaluate(
              (element) =>
                element.ownerDocument.defaultView
                  ?.getComputedStyle(element)
                  .textDecorationLine.includes('line-through') === true,
            );
          }
          await page.screenshot({ path: screenshot });

          // "Test Request" of listPets: the key typed into Scalar's client goes out as a bearer
          // token, to this service, and its answer (the seeded pets) shows in the client.
          await page
            .getByRole('button', { name: /^Test Request\s*\(get \/pets\)$/ })
            .first()
            .click();
          const client = page.getByRole('dialog');
          await client.getByPlaceholder('Token').fill(KEY);
          const [sent] = await Promise.all([
            page.waitForRequest((request) => new URL(request.url()).pathname === '/v1/pets'),
            client.getByRole('button', { name: /^Send get request/ }).click(),
          ]);
          tried.authorization = sent.headers().authorization;
          tried.status = (await sent.response())?.status();
          await client
            .getByText(firstPet?.name ?? 'no pet', { exact: false })
            .first()
            .waitFor({ state: 'visible', timeout: 30_000 });
          await page.screenshot({ path: tryShot });
          await client.getByRole('button', { name: 'Close Client' }).click();

          await page
            .getByText(getPet?.summary ?? 'getPet', { exact: true })
            .first()
            .click();
          // Its section opens with a "Deprecated" badge (no other operation has one).
          await page
            .getByText(/^deprecated$/i)
            .filter({ visible: true })
            .first()
            .waitFor({ state: 'visible', timeout: 30_000 });
        });

        expect(struck).toEqual(
          Object.fromEntries(
            operations.map((operation) => [operation.operationId, operation.deprecated === true]),
          ),
        );
        expect(struck.getPet).toBe(true);
        expect(tried).toEqual({ authorization: `Bearer ${KEY}`, status: 200 });
        expect(visit.errors).toEqual([]);
        expect(visit.cspViolations).toEqual([]);
        const hosts = new Set(visit.requests.map((url) => new URL(url).origin));
        expect([...hosts]).toEqual([app.origin]);
        expect(visit.requests).toContain(`${app.origin}/v1/openapi.json`);
        console.log(`screenshots of ${name} /docs: ${screenshot}, ${tryShot}, ${getPetShot}`);
        app.signal('SIGTERM');
        expect(await app.exited).toBe(0);
      },
      90_000,
    );
  });
}
