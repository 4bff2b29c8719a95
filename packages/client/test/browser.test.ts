import { fileURLToPath } from 'node:url';
import {
  CHROMIUM_PATH,
  chromiumAvailable,
  killStartedApps,
  type ListeningApp,
  startListening,
} from '@petstore/service/testing';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_KEY, EXAMPLE_APPS } from './support/services.js';

// The client in a real browser: bundled for the browser platform (a `node:` import would fail
// the build), loaded into headless Chromium on the service's own origin, calling the real
// service over real sockets.

const ENTRY = fileURLToPath(new URL('../src/index.ts', import.meta.url));

const browser = chromiumAvailable();
if (!browser) console.warn(`No Chromium at ${CHROMIUM_PATH}: skipping the client's browser test.`);

let app: ListeningApp;

beforeAll(async () => {
  const [express] = EXAMPLE_APPS;
  app = await startListening(express.dir, { API_KEYS: API_KEY });
});

afterAll(killStartedApps);

interface BrowserRun {
  readonly created: { id: number; name: string };
  readonly walked: string[];
  readonly error: { name: string; status: number; code: string; isError: boolean };
}

it.skipIf(!browser)(
  'runs in headless Chromium: creates, pages and throws PetStoreError',
  async () => {
    const bundle = await build({
      entryPoints: [ENTRY],
      bundle: true,
      // A classic script exposing `PetStoreClient`: the test's own import() calls are rewritten by
      // vitest, so the page gets the client as a global instead.
      format: 'iife',
      globalName: 'PetStoreClient',
      platform: 'browser',
      target: 'es2022',
      write: false,
    });
    const code = bundle.outputFiles[0]?.text ?? '';
    expect(code).not.toMatch(/["']node:/);

    const chrome = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    try {
      const page = await chrome.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      // A page and the bundle at the service's origin, answered by the test: the client's
      // calls to /v1 are then same-origin, and go to the real service.
      await page.route(`${app.origin}/client-check`, (route) =>
        route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>client</title>' }),
      );
      await page.route(`${app.origin}/client.js`, (route) =>
        route.fulfill({ contentType: 'text/javascript', body: code }),
      );
      await page.goto(`${app.origin}/client-check`);
      await page.addScriptTag({ url: `${app.origin}/client.js` });
      const result = await page.evaluate(
        async ({ baseUrl, apiKey }) => {
          const { createPetStoreClient, PetStoreError } = (
            globalThis as unknown as { PetStoreClient: typeof import('../src/index.js') }
          ).PetStoreClient;
          // The browser's own fetch, as an application would use it.
          const client = createPetStoreClient({ baseUrl, apiKey });
          const created = await client.createPet({ name: 'Browser Rex', categoryId: 1 });
          for (let n = 0; n < 4; n++)
            await client.createPet({ name: `Browser ${n}`, categoryId: 2 });
          const walked: string[] = [];
          for await (const pet of client.pets({ limit: 2 })) walked.push(pet.name);
          let error = { name: '', status: 0, code: '', isError: false };
          try {
            await client.getPet(424242);
          } catch (caught) {
            const failure = caught as InstanceType<typeof PetStoreError>;

            error = {
              name: failure.name,
              status: failure.status,
              code: failure.code,
              isError: caught instanceof PetStoreError,
            };
          }
          return { created, walked, error };
        },
        { baseUrl: app.url, apiKey: API_KEY },
      );
      const run = result as BrowserRun;
      expect(run.created).toMatchObject({ id: 1, name: 'Browser Rex' });
      expect(run.walked).toEqual([
        'Browser Rex',
        'Browser 0',
        'Browser 1',
        'Browser 2',
        'Browser 3',
      ]);
      expect(run.error).toEqual({
        name: 'PetStoreError',
        status: 404,
        code: 'not_found',
        isError: true,
      });
      expect(errors).toEqual([]);
    } finally {
      await chrome.close();
    }
  },
  60_000,
);
