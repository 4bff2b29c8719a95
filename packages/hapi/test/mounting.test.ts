import type { Server } from '@hapi/hapi';
import { createPetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
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

async function serve(options: ServeOptions = {}): Promise<Running> {
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

  it('is matched exactly whatever the router: other spellings of the prefix get hapi 404s', async () => {
    const api = await serve({ server: { router: { isCaseSensitive: false } } });
    // hapi routes these to the plugin (it folds case, decodes %76); the API is at /v1 exactly.
    for (const path of ['/V1/pets', '/%76%31/pets']) {
      const other = await api.send({ method: 'GET', path, headers: AUTH });
      expect([path, other.status, other.headers['x-request-id']]).toEqual([path, 404, undefined]);
    }
    // Not ours either: hapi's own refusal of a path it cannot decode.
    const bad = await api.send({ method: 'GET', path: '/V1/%ff', headers: AUTH });
    expect([bad.status, bad.headers['x-request-id']]).toEqual([400, undefined]);
    const exact = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([exact.status, exact.body]).toEqual([200, '[]']);
    // A spelling a URL parser reads as the prefix is the prefix: /v1/./pets is /v1/pets.
    const dotted = await api.send({ method: 'GET', path: '/v1/./pets', headers: AUTH });
    expect([dotted.status, dotted.body]).toEqual([200, '[]']);
  });
});
