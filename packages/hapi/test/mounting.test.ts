import type { Plugin, Server } from '@hapi/hapi';
import { createPetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { petStorePlugin } from '../src/index.js';
import {
  API_KEY,
  AUTH,
  JSON_AUTH,
  memoryStore,
  type Running,
  type ServeOptions,
  serveHapi,
} from './helpers.js';

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function serve(options: ServeOptions & { basePath?: string } = {}): Promise<Running> {
  const server = await serveHapi(memoryStore(), options);
  running.push(server);
  return server;
}

const newPet = (name: string) => JSON.stringify({ name, categoryId: 1 });

/** A host whose own routes all need its own auth, with the usual auth-free health check. */
function guardedHost(server: Server): void {
  server.auth.scheme('host-key', () => ({
    authenticate: (request, h) =>
      request.headers['x-host-key'] === 'open'
        ? h.authenticated({ credentials: { user: 'host' } })
        : h.response({ host: 'denied' }).code(401).takeover(),
  }));
  server.auth.strategy('host', 'host-key');
  server.auth.default('host');
  server.route({
    method: 'GET',
    path: '/healthz',
    options: { auth: false, handler: () => ({ ok: true }) },
  });
  server.route({ method: 'GET', path: '/account', handler: () => ({ host: 'account' }) });
  server.route({
    method: 'GET',
    path: '/files/{name}',
    options: { auth: false, handler: () => 'file' },
  });
}

describe('mount point', () => {
  it('uses the routes.prefix in Location and Link', async () => {
    const api = await serve({ prefix: '/api/pets-v1' });
    const created = await api.send({
      method: 'POST',
      path: '/api/pets-v1/pets',
      headers: JSON_AUTH,
      body: newPet('Rex'),
    });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe('/api/pets-v1/pets/1');
    await api.send({
      method: 'POST',
      path: '/api/pets-v1/pets',
      headers: JSON_AUTH,
      body: newPet('Tom'),
    });

    const first = await api.send({
      method: 'GET',
      path: '/api/pets-v1/pets?limit=1',
      headers: AUTH,
    });
    const next = /^<(\/api\/pets-v1\/pets\?limit=1&cursor=[^>]+)>; rel="next"$/.exec(
      first.headers.link ?? '',
    );
    expect(next, first.headers.link).not.toBeNull();
    const second = await api.send({ method: 'GET', path: next?.[1] ?? '', headers: AUTH });
    expect(JSON.parse(second.body)).toEqual([
      { id: 2, name: 'Tom', categoryId: 1, status: 'available' },
    ]);

    const old = await api.send({ method: 'GET', path: '/api/pets-v1/pets/1', headers: AUTH });
    expect(old.headers.link).toBe('</api/pets-v1/pets>; rel="successor-version"');
  });

  it('includes the prefix of an enclosing plugin', async () => {
    const store = memoryStore();
    const tenant: Plugin<void> = {
      name: 'tenant',
      register: (server) =>
        server.register(
          { plugin: petStorePlugin, options: { store } },
          { routes: { prefix: '/v1' } },
        ),
    };
    const api = await serve({
      host: (server) => server.register(tenant, { routes: { prefix: '/tenant' } }),
      prefix: '/unused',
    });
    const created = await api.send({
      method: 'POST',
      path: '/tenant/v1/pets',
      headers: JSON_AUTH,
      body: newPet('Rex'),
    });
    expect([created.status, created.headers.location]).toEqual([201, '/tenant/v1/pets/1']);
  });

  it('takes the basePath option over the prefix (a proxy rewrites it)', async () => {
    const store = memoryStore();
    const api = await serve({
      prefix: '/unused',
      host: (server) =>
        server.register(
          { plugin: petStorePlugin, options: { store, basePath: '/public/v1' } },
          { routes: { prefix: '/v1' } },
        ),
    });
    const created = await api.send({
      method: 'POST',
      path: '/v1/pets',
      headers: JSON_AUTH,
      body: newPet('Rex'),
    });
    expect(created.headers.location).toBe('/public/v1/pets/1');
  });

  it('answers the bare prefix and every path below it, as the core decides', async () => {
    const api = await serve();
    // `/v1/%ff` is one hapi's router refuses itself (its params must decode).
    for (const path of [
      '/v1',
      '/v1/',
      '/v1/nothing-here',
      '/v1/pets/1/extra',
      '/v1/%ff',
      '/v1/pets%2F1',
    ]) {
      const anonymous = await api.send({ method: 'GET', path });
      expect([path, anonymous.status, JSON.parse(anonymous.body).code]).toEqual([
        path,
        401,
        'unauthorized',
      ]);
      const known = await api.send({ method: 'GET', path, headers: AUTH });
      expect([path, known.status, JSON.parse(known.body).code]).toEqual([path, 404, 'not_found']);
    }
  });

  it('sees a path rewritten into the prefix by the host (request.setUrl)', async () => {
    const api = await serve({
      host: (server) =>
        server.ext('onRequest', (request, h) => {
          if (request.path === '/legacy/animals') request.setUrl('/v1/pets?limit=1');
          return h.continue;
        }),
    });
    await api.send({ method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: newPet('Rex') });
    const rewritten = await api.send({ method: 'GET', path: '/legacy/animals', headers: AUTH });
    expect([rewritten.status, JSON.parse(rewritten.body)]).toEqual([
      200,
      [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }],
    ]);
  });
});

describe('next to host routes', () => {
  it('leaves host routes, their auth and hapi 404s outside the prefix alone', async () => {
    const api = await serve({ host: guardedHost });
    const health = await api.send({ method: 'GET', path: '/healthz' });
    expect([health.status, health.body]).toEqual([200, '{"ok":true}']);
    const denied = await api.send({ method: 'GET', path: '/account' });
    expect([denied.status, denied.body]).toEqual([401, '{"host":"denied"}']);
    const account = await api.send({
      method: 'GET',
      path: '/account',
      headers: { 'x-host-key': 'open' },
    });
    expect([account.status, account.body]).toEqual([200, '{"host":"account"}']);
    // The host's default auth strategy does not apply under the prefix: the core authenticates.
    const ours = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([ours.status, ours.body]).toEqual([200, '[]']);
    const anonymous = await api.send({
      method: 'GET',
      path: '/v1/pets',
      headers: { 'x-host-key': 'open' },
    });
    expect(JSON.parse(anonymous.body)).toMatchObject({ code: 'unauthorized', status: 401 });

    const hapi404 = { statusCode: 404, error: 'Not Found', message: 'Not Found' };
    for (const path of ['/nope', '/v1x/pets', '/V1/pets']) {
      const outside = await api.send({ method: 'GET', path, headers: { 'x-host-key': 'open' } });
      expect([path, outside.status, JSON.parse(outside.body)]).toEqual([path, 404, hapi404]);
    }
    // hapi's own answer for an undecodable path outside the prefix stays hapi's.
    const badOutside = await api.send({ method: 'GET', path: '/files/%ff' });
    expect(JSON.parse(badOutside.body)).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });

  it("wins under the prefix over a host catch-all route and the host's CORS preflight", async () => {
    const api = await serve({
      server: { routes: { cors: true } },
      host: (server) => {
        server.route({
          method: 'GET',
          path: '/{page*}',
          options: { auth: false, handler: () => 'spa' },
        });
        server.route({
          method: '*',
          path: '/{any*}',
          options: { auth: false, handler: () => 'host any' },
        });
        server.route({
          method: ['POST', 'PUT', 'PATCH', 'DELETE'],
          path: '/{any*}',
          options: { auth: false, handler: () => 'host named' },
        });
      },
    });
    expect((await api.send({ method: 'GET', path: '/about' })).body).toBe('spa');
    expect((await api.send({ method: 'DELETE', path: '/about' })).body).toBe('host named');
    expect((await api.send({ method: 'PURGE', path: '/about' })).body).toBe('host any');
    const list = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([list.status, list.body]).toEqual([200, '[]']);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'PURGE']) {
      const ours = await api.send({ method, path: '/v1/pets/1', headers: AUTH });
      expect([method, JSON.parse(ours.body).code]).toEqual([method, 'method_not_allowed']);
    }
    const preflight = await api.send({
      method: 'OPTIONS',
      path: '/v1/pets',
      headers: { origin: 'https://example.test', 'access-control-request-method': 'POST' },
    });
    expect(JSON.parse(preflight.body)).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets the core take its time under a host-wide server timeout', async () => {
    // A slow key check keeps the core busy longer than hapi's 50 ms.
    const verify = async (token: string) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return token === API_KEY;
    };
    const slow = createPetStore({ storage: createMemoryStorage(), verify });
    const api = await serveHapi(slow, { server: { routes: { timeout: { server: 50 } } } });
    running.push(api);
    const list = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([list.status, list.body]).toEqual([200, '[]']);
  });

  it('is case-insensitive exactly when the host router is', async () => {
    const api = await serve({ server: { router: { isCaseSensitive: false } } });
    const upper = await api.send({ method: 'GET', path: '/V1/pets', headers: AUTH });
    expect([upper.status, upper.body]).toEqual([200, '[]']);
    const badPath = await api.send({ method: 'GET', path: '/V1/%ff', headers: AUTH });
    expect(JSON.parse(badPath.body)).toMatchObject({ code: 'not_found', status: 404 });
  });
});
