import { fileURLToPath } from 'node:url';
import { CHROMIUM_PATH, chromiumAvailable } from '@petstore/service/testing';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type StubServer, stubServer } from './support/stub-server.js';

// A browser's fetch with `redirect: 'manual'` does not show the 3xx: it gives an opaque
// redirect (type 'opaqueredirect', status 0, no headers). The client in headless Chromium,
// on a real server that redirects every API call, must refuse it as `redirect_refused` and
// send nothing to the target. (Node's fetch gives the 3xx itself: test/redirects.test.ts.)

const ENTRY = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const browser = chromiumAvailable();
if (!browser) console.warn(`No Chromium at ${CHROMIUM_PATH}: skipping the browser redirect test.`);

let server: StubServer;
let bundle = '';

beforeAll(async () => {
  const built = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'iife',
    globalName: 'PetStoreClient',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  bundle = built.outputFiles[0]?.text ?? '';
  server = await stubServer((request, response) => {
    const url = request.url ?? '';
    if (url === '/page') {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>client</title>');
    } else if (url === '/client.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(bundle);
    } else if (url.startsWith('/v1/')) {
      response.writeHead(request.method === 'POST' ? 307 : 302, { location: '/elsewhere/pets' });
      response.end();
    } else {
      // What a client that followed would get: an answer of the service's shape.
      const pet = { id: 99, name: 'elsewhere', categoryId: 1, status: 'available' };
      response.writeHead(request.method === 'POST' ? 201 : 200, {
        'content-type': 'application/json',
      });
      response.end(JSON.stringify(request.method === 'POST' ? pet : [pet]));
    }
  });
});

afterAll(() => server?.close());

it.skipIf(!browser)(
  'in headless Chromium: an opaque redirect is redirect_refused (status 0), not followed',
  async () => {
    const origin = new URL(server.baseUrl).origin;
    const chrome = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const page = await chrome.newPage();
      await page.goto(`${origin}/page`);
      await page.addScriptTag({ url: `${origin}/client.js` });
      const outcomes = await page.evaluate(
        async ({ baseUrl }) => {
          const { createPetStoreClient, PetStoreError } = (
            globalThis as unknown as { PetStoreClient: typeof import('../src/index.js') }
          ).PetStoreClient;
          const client = createPetStoreClient({
            baseUrl,
            apiKey: 'browser-key-0123456',
            retries: 2,
          });
          const outcome = async (call: () => Promise<unknown>) => {
            try {
              return { resolved: await call() };
            } catch (caught) {
              if (!(caught instanceof PetStoreError)) return { other: String(caught) };
              return { status: caught.status, code: caught.code };
            }
          };
          return [
            await outcome(() => client.listPets()),
            await outcome(() => client.createPet({ name: 'Rex', categoryId: 1 })),
          ];
        },
        { baseUrl: server.baseUrl },
      );
      expect(outcomes).toEqual([
        { status: 0, code: 'redirect_refused' },
        { status: 0, code: 'redirect_refused' },
      ]);
      // One attempt each, and nothing at the redirect's target.
      expect(
        server.requests
          .filter(({ url }) => url.startsWith('/v1/') || url.startsWith('/elsewhere'))
          .map(({ method, url }) => `${method} ${url}`),
      ).toEqual(['GET /v1/pets', 'POST /v1/pets']);
    } finally {
      await chrome.close();
    }
  },
  60_000,
);
