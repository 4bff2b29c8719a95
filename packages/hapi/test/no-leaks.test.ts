import { gzipSync } from 'node:zlib';
import { coreTarget, type WireRequest, type WireResponse } from '@petstore/conformance';
import type { PetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, JSON_AUTH, memoryStore, type Running, serveHapi } from './helpers.js';

/** Framing and connection headers belong to Node's HTTP layer, not to the answer. */
const TRANSPORT = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
]);

const answer = (res: WireResponse, method: string) => ({
  status: res.status,
  headers: Object.fromEntries(
    Object.entries(res.headers)
      .filter(([name]) => !TRANSPORT.has(name))
      .sort(),
  ),
  // A HEAD answer has no body on the wire; the core's value still carries one.
  body: method === 'HEAD' ? '' : res.body,
});

const pets = Array.from({ length: 30 }, (_, i) => ({
  name: `pet-${i + 1}`,
  categoryId: 1,
  status: 'available' as const,
}));
const petJson = JSON.stringify({ name: 'Rex', categoryId: 1 });
const tooLarge = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), categoryId: 1 });

// Each request goes to hapi and, with the same history, straight to the core: the answers must match.
const requests: ReadonlyArray<readonly [string, WireRequest]> = [
  ['no credentials', { method: 'GET', path: '/v1/pets' }],
  [
    'a page over 1 KiB, gzip and a range welcome',
    {
      method: 'GET',
      path: '/v1/pets?limit=30',
      headers: { ...AUTH, 'accept-encoding': 'gzip, deflate', range: 'bytes=0-9' },
    },
  ],
  [
    'a conditional GET',
    {
      method: 'GET',
      path: '/v1/pets?limit=2',
      headers: { ...AUTH, 'if-none-match': '*', 'if-modified-since': new Date().toUTCString() },
    },
  ],
  ['HEAD', { method: 'HEAD', path: '/v1/pets', headers: AUTH }],
  [
    'a CORS preflight',
    {
      method: 'OPTIONS',
      path: '/v1/pets',
      headers: { ...AUTH, origin: 'https://example.test', 'access-control-request-method': 'POST' },
    },
  ],
  [
    'a cross-origin GET',
    { method: 'GET', path: '/v1/pets/1', headers: { ...AUTH, origin: 'https://example.test' } },
  ],
  ['PURGE', { method: 'PURGE', path: '/v1/pets', headers: AUTH }],
  ['DELETE', { method: 'DELETE', path: '/v1/pets/1', headers: AUTH }],
  ['PUT with a body', { method: 'PUT', path: '/v1/pets/1', headers: JSON_AUTH, body: petJson }],
  ['PATCH', { method: 'PATCH', path: '/v1/pets', headers: JSON_AUTH, body: petJson }],
  ['the bare prefix', { method: 'GET', path: '/v1', headers: AUTH }],
  ['a path hapi cannot decode', { method: 'GET', path: '/v1/pets/%ff', headers: AUTH }],
  ['an encoded slash', { method: 'GET', path: '/v1/pets%2F1', headers: AUTH }],
  ['an encoded digit', { method: 'GET', path: '/v1/pets/%31', headers: AUTH }],
  [
    'a Host header that is no host',
    { method: 'GET', path: '/v1/pets?limit=1', headers: { ...AUTH, host: 'not a host' } },
  ],
  [
    'a malformed Cookie header',
    { method: 'GET', path: '/v1/pets?limit=1', headers: { ...AUTH, cookie: 'a="b; ;=;c' } },
  ],
  ['a valid create', { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: petJson }],
  [
    'a Content-Type hapi cannot parse',
    {
      method: 'POST',
      path: '/v1/pets',
      headers: { ...AUTH, 'content-type': ';;;' },
      body: petJson,
    },
  ],
  [
    'text/plain',
    {
      method: 'POST',
      path: '/v1/pets',
      headers: { ...AUTH, 'content-type': 'text/plain' },
      body: petJson,
    },
  ],
  [
    'multipart',
    {
      method: 'POST',
      path: '/v1/pets',
      headers: { ...AUTH, 'content-type': 'multipart/form-data; boundary=x' },
      body: '--x--',
    },
  ],
  ['malformed JSON', { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: '{"name":' }],
  [
    'a __proto__ key',
    {
      method: 'POST',
      path: '/v1/pets',
      headers: JSON_AUTH,
      body: '{"name":"Rex","categoryId":1,"__proto__":{"x":1}}',
    },
  ],
  [
    'a gzip-encoded body',
    {
      method: 'POST',
      path: '/v1/pets',
      headers: { ...JSON_AUTH, 'content-encoding': 'gzip' },
      body: gzipSync(petJson),
    },
  ],
  ['an empty body', { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: '' }],
  [
    '2 MiB, over hapi’s own 1 MiB and the host’s 10 bytes',
    { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: tooLarge },
  ],
  [
    'a Content-Length past 2^53',
    {
      method: 'POST',
      path: '/v1/pets',
      headers: { ...JSON_AUTH, 'content-length': '18000000000000000000' },
      body: '{}',
    },
  ],
  [
    'the OpenAPI document (large, compressible)',
    { method: 'GET', path: '/v1/openapi.json', headers: { 'accept-encoding': 'gzip' } },
  ],
];

describe("hapi's own behaviour does not leak under the prefix", () => {
  let api: Running;
  let twin: PetStore;

  beforeAll(async () => {
    const storage = createMemoryStorage();
    const twinStorage = createMemoryStorage();
    const store = memoryStore({ storage });
    twin = memoryStore({ storage: twinStorage });
    for (const pet of pets) {
      await storage.createPet(pet);
      await twinStorage.createPet(pet);
    }
    // A host that turns on everything hapi can add on its own: all of it stays outside the prefix.
    api = await serveHapi(store, {
      server: {
        compression: { minBytes: 1 },
        routes: {
          cors: true,
          security: true,
          payload: { maxBytes: 10 },
          timeout: { server: 5_000 },
        },
        state: { strictHeader: true, ignoreErrors: false },
      },
      host: (server) => {
        server.state('session', { autoValue: () => 'host-cookie' });
        server.ext('onPreResponse', (request, h) => {
          const { response } = request;
          if ('header' in response && typeof response.header === 'function')
            response.header('x-host', 'touched');
          return h.continue;
        });
      },
    });
  });
  afterAll(() => api.close());

  it.each(requests)('%s: same status, headers and body as the core', async (_name, wire) => {
    // A fixed request id, or the core would make up a different one for each side.
    const sent = { ...wire, headers: { ...wire.headers, 'x-request-id': 'twin-check' } };
    const [viaHapi, direct] = [await api.send(sent), await coreTarget(twin).send(sent)];
    expect(answer(viaHapi, wire.method)).toEqual(answer(direct, wire.method));
  });
});
