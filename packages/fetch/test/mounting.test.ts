import type { RunningServer } from '@petstore/conformance';
import { createPetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { petStoreFetch } from '../src/index.js';
import { honoApp, serveFetch, serveHono } from './servers.js';

const KEY = 'mounting-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const newStore = () => createPetStore({ storage: createMemoryStorage(), apiKeys: [KEY] });

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('beside host routes in a Hono app', () => {
  it("leaves the host's routes, and their own answers, to the host", async () => {
    running = await serveHono(honoApp(newStore()));
    const health = await running.send({ method: 'GET', path: '/healthz' });
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { ok: true }]);
    const elsewhere = await running.send({ method: 'GET', path: '/other', headers: AUTH });
    expect([elsewhere.status, elsewhere.headers['x-request-id']]).toEqual([404, undefined]);
    const api = await running.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([api.status, api.body]).toEqual([200, '[]']);
  });
});

describe('the handler alone', () => {
  it("answers outside its base path with the core's JSON 404, before any auth", async () => {
    running = await serveFetch(newStore(), { mountPath: '/v1' });
    for (const path of ['/', '/pets', '/v2/pets', '/v1x/pets']) {
      const res = await running.send({ method: 'GET', path });
      expect([path, res.status, res.headers['content-type']]).toEqual([
        path,
        404,
        'application/json; charset=utf-8',
      ]);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'not_found', status: 404 });
    }
  });

  it('reads the query as sent in the URL, undecoded', async () => {
    const handler = petStoreFetch(newStore(), { mountPath: '/v1' });
    const encoded = await handler(
      new Request('http://localhost/v1/pets?limit=%31', { headers: AUTH }),
    );
    expect(encoded.status).toBe(400);
    const plain = await handler(new Request('http://localhost/v1/pets?limit=1', { headers: AUTH }));
    expect(plain.status).toBe(200);
  });

  it('keeps the connection for a body read to its end, closes it after one left unread', async () => {
    const handler = petStoreFetch(newStore(), { mountPath: '/v1' });
    const post = (headers: Record<string, string>) =>
      handler(
        new Request('http://localhost/v1/pets', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: '{"name":"Rex","categoryId":1}',
        }),
      );
    const read = await post(AUTH);
    expect([read.status, read.headers.get('connection')]).toEqual([201, null]);
    // Refused before the body is read: the unread rest is no next request.
    const unread = await post({ 'content-length': '29' });
    expect([unread.status, unread.headers.get('connection')]).toEqual([401, 'close']);
  });
});
