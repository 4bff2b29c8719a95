import type { RunningServer } from '@petstore/conformance';
import { createPetStore, type PetStore, type PetStoreOptions } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { petStorePlugin } from '../src/index.js';
import { hostWithPetStore, listen } from './helpers.js';

const KEY = 'fastify-adapter-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const PET = '{"name":"Rex","categoryId":1}';

const memoryStore = (options: Partial<PetStoreOptions> = {}): PetStore =>
  createPetStore({ storage: createMemoryStorage(), apiKeys: [KEY], ...options });

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});
const serve = async (app: FastifyInstance) => {
  const server = await listen(app);
  running.push(server);
  return server;
};

const HOOKS = [
  'onRequest',
  'preParsing',
  'preValidation',
  'preHandler',
  'preSerialization',
  'onSend',
  'onResponse',
  'onError',
] as const;

describe('host hooks', () => {
  it('run onRequest and onResponse for API answers, and all of them for host routes', async () => {
    const ran: string[] = [];
    const app = Fastify();
    for (const hook of HOOKS) {
      app.addHook(hook, async (request: { url: string }) => {
        ran.push(`${hook} ${request.url}`);
      });
    }
    app.setReplySerializer(() => '"host serializer"');
    app.post('/host', async () => ({ ok: true }));
    await app.register(petStorePlugin, { store: memoryStore(), prefix: '/v1' });
    const api = await serve(app);

    const created = await api.send({
      method: 'POST',
      path: '/v1/pets',
      headers: JSON_AUTH,
      body: PET,
    });
    expect([created.status, JSON.parse(created.body)]).toEqual([
      201,
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
    ]);
    const host = await api.send({ method: 'POST', path: '/host', headers: JSON_AUTH, body: PET });
    expect(host.body).toBe('"host serializer"');
    await new Promise((resolve) => setTimeout(resolve, 50)); // onResponse runs after the answer
    expect(ran.filter((line) => line.endsWith('/v1/pets'))).toEqual([
      'onRequest /v1/pets',
      'onResponse /v1/pets',
    ]);
    expect(ran.filter((line) => line.endsWith('/host')).map((line) => line.split(' ')[0])).toEqual(
      HOOKS.filter((hook) => hook !== 'onError'),
    );
  });

  it("keeps a host onRequest hook's own answer (say, its own access check)", async () => {
    const app = Fastify();
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-host', 'set by a hook');
      if (request.headers['x-blocked'] !== undefined) await reply.code(403).send({ host: 'no' });
    });
    app.get('/host', async () => 'host');
    await app.register(petStorePlugin, { store: memoryStore(), prefix: '/v1' });
    const api = await serve(app);
    const blocked = await api.send({
      method: 'GET',
      path: '/v1/pets',
      headers: { ...AUTH, 'x-blocked': '1' },
    });
    expect([blocked.status, JSON.parse(blocked.body)]).toEqual([403, { host: 'no' }]);
    const ours = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([ours.status, ours.body]).toEqual([200, '[]']);
    // The core decides every header of an API answer: reply.header() from a hook is not sent.
    expect(ours.headers['x-host']).toBeUndefined();
    expect((await api.send({ method: 'GET', path: '/host' })).headers['x-host']).toBe(
      'set by a hook',
    );
  });
});

describe("Fastify's own judgements stay out of the API", () => {
  it('parses no body, applies no bodyLimit and refuses no content type under the prefix', async () => {
    const app = await hostWithPetStore(memoryStore(), '/v1', { server: { bodyLimit: 10 } });
    app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
      done(null, { text: body });
    });
    const api = await serve(app);
    // Over the host's bodyLimit (10 bytes), well under the core's 16 KiB.
    const created = await api.send({
      method: 'POST',
      path: '/v1/pets',
      headers: JSON_AUTH,
      body: PET,
    });
    expect(created.status).toBe(201);
    const hostTooLarge = await api.send({
      method: 'POST',
      path: '/echo',
      headers: JSON_AUTH,
      body: PET,
    });
    expect([hostTooLarge.status, JSON.parse(hostTooLarge.body).code]).toEqual([
      413,
      'FST_ERR_CTP_BODY_TOO_LARGE',
    ]);
    // A type the host parses, and one Fastify finds invalid: the core's answers.
    for (const type of ['text/plain', 'not a media type']) {
      const anonymous = await api.send({
        method: 'POST',
        path: '/v1/pets',
        headers: { 'content-type': type },
        body: PET,
      });
      expect([type, anonymous.status, JSON.parse(anonymous.body).code]).toEqual([
        type,
        401,
        'unauthorized',
      ]);
      const known = await api.send({
        method: 'POST',
        path: '/v1/pets',
        headers: { ...AUTH, 'content-type': type },
        body: PET,
      });
      expect([type, known.status, JSON.parse(known.body).code]).toEqual([
        type,
        415,
        'unsupported_media_type',
      ]);
    }
  });

  it("leaves the host's 404 and routes alone outside the prefix", async () => {
    const api = await serve(await hostWithPetStore(memoryStore(), '/v1'));
    const health = await api.send({ method: 'GET', path: '/healthz' });
    expect([health.status, health.body]).toEqual([200, '{"ok":true}']);
    const outside = await api.send({ method: 'GET', path: '/v2/pets', headers: AUTH });
    expect([outside.status, JSON.parse(outside.body).error]).toEqual([404, 'Not Found']);
    const inside = await api.send({ method: 'GET', path: '/v1/nothing', headers: AUTH });
    expect([inside.status, JSON.parse(inside.body).code]).toEqual([404, 'not_found']);
  });

  it('answers a path Fastify cannot decode with the core only through petStoreFrameworkErrors', async () => {
    const withHelper = await serve(await hostWithPetStore(memoryStore(), '/v1'));
    const ours = await withHelper.send({ method: 'GET', path: '/v1/%ff', headers: AUTH });
    expect([ours.status, JSON.parse(ours.body).code]).toEqual([404, 'not_found']);
    const outside = await withHelper.send({ method: 'GET', path: '/x/%ff', headers: AUTH });
    expect([outside.status, JSON.parse(outside.body).code]).toEqual([400, 'FST_ERR_BAD_URL']);

    const plain = Fastify();
    await plain.register(petStorePlugin, { store: memoryStore(), prefix: '/v1' });
    const without = await serve(plain);
    const refused = await without.send({ method: 'GET', path: '/v1/%ff', headers: AUTH });
    expect([refused.status, JSON.parse(refused.body).code]).toEqual([400, 'FST_ERR_BAD_URL']);
  });

  it('answers a JSON 500, never Fastify error page, when the response cannot be written', async () => {
    const errors: unknown[] = [];
    const store: PetStore = {
      ...memoryStore(),
      handle: async () => ({ status: 200, headers: { 'x-broken': 'line\nbreak' }, body: '{}' }),
    };
    const app = Fastify();
    await app.register(petStorePlugin, {
      store,
      prefix: '/v1',
      onWriteError: (error) => errors.push(error),
    });
    const api = await serve(app);
    const response = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([response.status, JSON.parse(response.body)]).toEqual([
      500,
      { code: 'internal_error', message: 'The response could not be written.', status: 500 },
    ]);
    expect((errors[0] as { code?: string }).code).toBe('ERR_INVALID_CHAR');
  });
});

describe("the prefix, whatever Fastify's router options", () => {
  const withRouter = async (routerOptions: NonNullable<FastifyServerOptions['routerOptions']>) =>
    serve(await hostWithPetStore(memoryStore(), '/api/v1', { server: { routerOptions } }));
  /** Fastify's own 404 (the host's), not the core's: no request id, Fastify's body. */
  const expectHostNotFound = (answer: { status: number; headers: Record<string, string> }) => {
    expect(answer.status).toBe(404);
    expect(answer.headers['x-request-id']).toBeUndefined();
  };

  it('is matched exactly: caseSensitive: false routes /API/V1 to the plugin, which hands it back', async () => {
    const api = await withRouter({ caseSensitive: false });
    expectHostNotFound(await api.send({ method: 'GET', path: '/API/V1/pets', headers: AUTH }));
    const exact = await api.send({
      method: 'POST',
      path: '/api/v1/pets',
      headers: JSON_AUTH,
      body: PET,
    });
    expect([exact.status, exact.headers.location]).toEqual([201, '/api/v1/pets/1']);
  });

  it('is matched exactly: ignoreDuplicateSlashes routes //api//v1 to the plugin, which hands it back', async () => {
    const api = await withRouter({ ignoreDuplicateSlashes: true });
    expectHostNotFound(
      await api.send({ method: 'GET', path: `${api.origin}//api//v1/pets`, headers: AUTH }),
    );
    const below = await api.send({ method: 'GET', path: '/api/v1//pets/1', headers: AUTH });
    expect([below.status, JSON.parse(below.body).code]).toEqual([404, 'not_found']);
  });

  it('is matched as sent: Fastify decodes /api/v%31 to the prefix, the plugin hands it back', async () => {
    const api = await withRouter({});
    expectHostNotFound(await api.send({ method: 'GET', path: '/api/v%31/pets', headers: AUTH }));
  });

  it('is reached through . and .. segments as a URL parser reads them, with petStoreServerOptions', async () => {
    const api = await withRouter({});
    for (const path of ['/x/../api/v1/pets', '/api/./v1/pets', '/api/v1/%2e/pets']) {
      const answer = await api.send({ method: 'GET', path, headers: AUTH });
      expect([path, answer.status, answer.body]).toEqual([path, 200, '[]']);
    }
    expectHostNotFound(await api.send({ method: 'GET', path: '/api/v1/../pets', headers: AUTH }));
  });
});

describe('plugin metadata (fastify-plugin)', () => {
  it('names the plugin and the Fastify versions it supports, and stays encapsulated', async () => {
    const meta = (petStorePlugin as unknown as Record<symbol, unknown>)[Symbol.for('plugin-meta')];
    expect(meta).toMatchObject({ name: '@petstore/fastify', fastify: '5.x' });
    const app = Fastify();
    await app.register(petStorePlugin, { store: memoryStore(), prefix: '/v1' });
    await app.register(petStorePlugin, { store: memoryStore(), prefix: '/v2' });
    expect(app.hasPlugin('@petstore/fastify')).toBe(true);
    const api = await serve(app);
    // Each registration keeps its own prefix: encapsulated, as before the metadata.
    for (const prefix of ['/v1', '/v2']) {
      const created = await api.send({
        method: 'POST',
        path: `${prefix}/pets`,
        headers: JSON_AUTH,
        body: PET,
      });
      expect([created.status, created.headers.location]).toEqual([201, `${prefix}/pets/1`]);
    }
    expect((await api.send({ method: 'GET', path: '/pets', headers: AUTH })).status).toBe(404);
  });
});
