import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync } from 'node:zlib';
import Hapi from '@hapi/hapi';
import { serve } from '@hono/node-server';
import { createPetStore, type PetStore } from '@petstore/core';
import { petStoreRouter } from '@petstore/express';
import { petStorePlugin as petStoreFastify } from '@petstore/fastify';
import { petStorePlugin as petStoreHapi } from '@petstore/hapi';
import { petStoreListener } from '@petstore/node';
import { createMemoryStorage } from '@petstore/storage-memory';
import express from 'express';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { apiReferenceRouter } from '../src/express.js';
import { apiReferencePlugin as apiReferenceFastify } from '../src/fastify.js';
import { apiReferenceFetch } from '../src/fetch.js';
import { apiReferencePlugin as apiReferenceHapi } from '../src/hapi.js';
import { CONTENT_SECURITY_POLICY } from '../src/index.js';
import { apiReferenceListener } from '../src/node.js';
import { manifest, plainBundle } from './support/assets.js';
import { send } from './support/http.js';

/** A started host: its origin, and how to stop it. */
interface Running {
  readonly origin: string;
  close(): Promise<void>;
}

const originOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function listening(server: Server): Promise<Running> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({
        origin: originOf(server),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    );
  });
}

/** Each host serves the pet store under /v1 and the reference page at /docs, as its README shows. */
const HOSTS: Record<string, (store: PetStore) => Promise<Running>> = {
  express: (store) => {
    const app = express();
    app.use('/v1', petStoreRouter(store));
    app.use(apiReferenceRouter({ publicPath: '/v1' }));
    return listening(createServer(app));
  },
  hapi: async (store) => {
    const server = Hapi.server({ host: '127.0.0.1', port: 0 });
    await server.register(
      { plugin: petStoreHapi, options: { store } },
      { routes: { prefix: '/v1' } },
    );
    await server.register({ plugin: apiReferenceHapi, options: { publicPath: '/v1' } });
    await server.start();
    return { origin: server.info.uri, close: () => server.stop() };
  },
  fastify: async (store) => {
    const app = Fastify();
    await app.register(petStoreFastify, { store, prefix: '/v1' });
    await app.register(apiReferenceFastify, { publicPath: '/v1' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    return { origin: originOf(app.server), close: () => app.close() };
  },
  'node:http': (store) => {
    const api = petStoreListener(store, { mountPath: '/v1' });
    const docs = apiReferenceListener({ publicPath: '/v1' });
    return listening(createServer((req, res) => docs(req, res, () => api(req, res))));
  },
  'fetch (@hono/node-server)': async (store) => {
    const docs = apiReferenceFetch({ publicPath: '/v1' });
    const document = JSON.stringify(store.openApiDocument);
    // The host's own routes: here only the document, else its 404.
    const host = (request: Request) =>
      new URL(request.url).pathname === '/v1/openapi.json'
        ? new Response(document, { headers: { 'content-type': 'application/json' } })
        : new Response('not here', { status: 404 });
    const server = await new Promise<Server>((resolve) => {
      const started = serve(
        { fetch: (request) => docs(request) ?? host(request), hostname: '127.0.0.1', port: 0 },
        () => resolve(started as Server),
      );
    });
    return {
      origin: originOf(server),
      close: () => new Promise<void>((done) => server.close(() => done())),
    };
  },
};

const running: Running[] = [];
afterAll(async () => {
  for (const host of running) await host.close();
});

const { hash, file } = manifest().scalar;
const BUNDLE = `/docs/${file}`;

describe.each(Object.keys(HOSTS))('mounted in %s, next to the pet store', (name) => {
  it('serves the page, its scripts (br, 304, HEAD) and 405s, and leaves other paths to the host', async () => {
    const store = createPetStore({ storage: createMemoryStorage(), apiKeys: ['k'.repeat(20)] });
    const host = await (HOSTS[name] as (store: PetStore) => Promise<Running>)(store);
    running.push(host);
    const { origin } = host;

    const page = await send(origin, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers['cache-control']).toBe('no-cache');
    const scripts = [...page.body.toString('utf8').matchAll(/<script src="([^"]+)"/g)];
    expect(scripts.map((match) => match[1])).toEqual([
      BUNDLE,
      expect.stringMatching(/^\/docs\/init\.[0-9a-f]{16}\.js$/),
    ]);

    const bundle = await send(origin, 'GET', BUNDLE, { 'accept-encoding': 'gzip, deflate, br' });
    expect(bundle.status).toBe(200);
    expect(bundle.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'content-encoding': 'br',
      'content-length': String(bundle.body.byteLength),
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${hash}-br"`,
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
    });
    expect(brotliDecompressSync(bundle.body).equals(plainBundle())).toBe(true);

    const cached = await send(origin, 'GET', BUNDLE, {
      'accept-encoding': 'br',
      'if-none-match': `"${hash}-br"`,
    });
    expect([cached.status, cached.body.byteLength, cached.headers.etag]).toEqual([
      304,
      0,
      `"${hash}-br"`,
    ]);

    const head = await send(origin, 'HEAD', BUNDLE, { 'accept-encoding': 'br' });
    expect([head.status, head.body.byteLength]).toEqual([200, 0]);
    expect(head.headers['content-length']).toBe(String(bundle.body.byteLength));

    const init = await send(origin, 'GET', scripts[1]?.[1] ?? '');
    expect(init.status).toBe(200);
    expect(init.body.toString('utf8')).toContain('url: "/v1/openapi.json"');

    const posted = await send(origin, 'POST', '/docs');
    expect([posted.status, posted.headers.allow]).toEqual([405, 'GET, HEAD']);

    // Not ours: the host's own answers.
    expect((await send(origin, 'GET', '/docs/other.js')).status).toBe(404);
    const document = await send(origin, 'GET', '/v1/openapi.json');
    expect(document.status).toBe(200);
    expect(JSON.parse(document.body.toString('utf8'))).toMatchObject({ openapi: '3.1.0' });
  });
});

describe('registered under a prefix', () => {
  const pageAt = async (origin: string, path: string) => {
    const page = await send(origin, 'GET', path);
    const [, bundle = ''] = /<script src="([^"]+)"/.exec(page.body.toString('utf8')) ?? [];
    return {
      status: page.status,
      bundle,
      bundleStatus: (await send(origin, 'HEAD', bundle)).status,
    };
  };

  it('hapi: the page and its scripts are below routes.prefix, and its path below that', async () => {
    const server = Hapi.server({ host: '127.0.0.1', port: 0 });
    await server.register({ plugin: apiReferenceHapi }, { routes: { prefix: '/tenant' } });
    await server.register(
      { plugin: apiReferenceHapi, options: { path: '/reference' } },
      { routes: { prefix: '/other' } },
    );
    await server.start();
    running.push({ origin: server.info.uri, close: () => server.stop() });
    expect(await pageAt(server.info.uri, '/tenant/docs')).toEqual({
      status: 200,
      bundle: `/tenant${BUNDLE}`,
      bundleStatus: 200,
    });
    expect(await pageAt(server.info.uri, '/other/reference')).toEqual({
      status: 200,
      bundle: `/other/reference/${file}`,
      bundleStatus: 200,
    });
  });

  it('Fastify: the page and its scripts are below the prefix, and its path below that', async () => {
    const app = Fastify();
    await app.register(apiReferenceFastify, { prefix: '/tenant' });
    await app.register(apiReferenceFastify, { prefix: '/other', path: '/reference' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    running.push({ origin: originOf(app.server), close: () => app.close() });
    expect(await pageAt(originOf(app.server), '/tenant/docs')).toEqual({
      status: 200,
      bundle: `/tenant${BUNDLE}`,
      bundleStatus: 200,
    });
    expect(await pageAt(originOf(app.server), '/other/reference')).toEqual({
      status: 200,
      bundle: `/other/reference/${file}`,
      bundleStatus: 200,
    });
  });

  it("Express: in a nested router, below the router's own mount (req.baseUrl)", async () => {
    const app = express();
    const tenant = express.Router();
    tenant.use(apiReferenceRouter());
    app.use('/tenant', tenant);
    const host = await listening(createServer(app));
    running.push(host);
    expect(await pageAt(host.origin, '/tenant/docs')).toEqual({
      status: 200,
      bundle: `/tenant${BUNDLE}`,
      bundleStatus: 200,
    });
  });
});
