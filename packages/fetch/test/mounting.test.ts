import type { RunningServer } from '@petstore/conformance';
import { createPetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { petStoreFetch } from '../src/index.js';
import { DRAIN_LIMIT } from '../src/stream-body.js';
import { honoApp, serveFetch, serveHono } from './servers.js';

const KEY = 'mounting-key-0123456789';
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

  it('reads a refused body away when small, and closes the connection after a big one', async () => {
    const handler = petStoreFetch(newStore(), { mountPath: '/v1' });
    const post = (headers: Record<string, string>, body: string | ReadableStream<Uint8Array>) =>
      handler(
        new Request('http://localhost/v1/pets', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
          duplex: 'half',
        } as RequestInit),
      );
    const pet = '{"name":"Rex","categoryId":1}';
    const read = await post(AUTH, pet);
    expect([read.status, read.headers.get('connection')]).toEqual([201, null]);
    // Refused before its body was read (no key): read away, so the connection can go on.
    const small = await post({ 'content-length': '29' }, pet);
    expect([small.status, small.headers.get('connection')]).toEqual([401, null]);
    // A body that never ends: 512 KiB are read away, then the stream is let go and the
    // connection ends with the answer.
    let pulled = 0;
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 64 * 1024;
          controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        },
      });
    const big = await post({ 'transfer-encoding': 'chunked' }, endless());
    expect([big.status, big.headers.get('connection')]).toEqual([401, 'close']);
    expect(pulled).toBeGreaterThan(DRAIN_LIMIT.bytes);
    expect(pulled).toBeLessThan(2 * DRAIN_LIMIT.bytes);
    // Announced bigger than that: not read at all, the connection ends with the answer.
    pulled = 0;
    const announced = await post({ 'content-length': String(10 * DRAIN_LIMIT.bytes) }, endless());
    expect([announced.status, announced.headers.get('connection')]).toEqual([401, 'close']);
    expect(pulled).toBeLessThan(DRAIN_LIMIT.bytes);
  });
});
