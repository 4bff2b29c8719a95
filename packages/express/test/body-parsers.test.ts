import { createHash } from 'node:crypto';
import { coreTarget, type WireRequest, type WireResponse } from '@petstore/conformance';
import type { PetStore } from '@petstore/core';
import express, { type Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { petStoreRouter } from '../src/index.js';
import { AUTH, JSON_AUTH, listen, memoryStore, type Running } from './helpers.js';

const KIB = 1024;
const padded = (bytes: number) =>
  JSON.stringify({ name: 'Rex', categoryId: 1, padding: 'x'.repeat(bytes) });
const chunked = (text: string, size = 4 * KIB) => {
  const bytes = Buffer.from(text);
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return { chunks };
};

/** Each case is sent to the core directly, to a plain mount, and behind express.json(). */
const cases: Record<string, WireRequest> = {
  'a valid pet': {
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_AUTH,
    body: '{"name":"Rex","categoryId":1}',
  },
  'malformed JSON': {
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_AUTH,
    body: '{"name":"Rex",',
  },
  'a JSON string': { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: '"Rex"' },
  'a JSON number': { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: '42' },
  'JSON null': { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: 'null' },
  'a JSON array': {
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_AUTH,
    body: '[{"name":"Rex","categoryId":1}]',
  },
  'an empty object': { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: '{}' },
  'an empty body': { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: '' },
  'an empty body, chunked': {
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_AUTH,
    body: { chunks: [new Uint8Array(0)] },
  },
  'blank space': { method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body: '  \n ' },
  'an unknown field': {
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_AUTH,
    body: '{"id":7,"name":"Rex","categoryId":1}',
  },
  'text/plain': {
    method: 'POST',
    path: '/v1/pets',
    headers: { ...AUTH, 'content-type': 'text/plain' },
    body: '{"name":"Rex","categoryId":1}',
  },
  'a latin1 charset': {
    method: 'POST',
    path: '/v1/pets',
    headers: { ...AUTH, 'content-type': 'application/json; charset=latin1' },
    body: '{"name":"Rex","categoryId":1}',
  },
  'no key, malformed body': {
    method: 'POST',
    path: '/v1/pets',
    headers: { 'content-type': 'application/json' },
    body: '{"name":',
  },
  '20 KiB (over the core limit, under express.json 100kb)': {
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_AUTH,
    body: padded(20 * KIB),
  },
  '20 KiB chunked, no Content-Length': {
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_AUTH,
    body: chunked(padded(20 * KIB)),
  },
  '200 KiB (over both limits)': {
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_AUTH,
    body: padded(200 * KIB),
  },
  '200 KiB chunked, no Content-Length': {
    method: 'POST',
    path: '/v1/pets',
    headers: JSON_AUTH,
    body: chunked(padded(200 * KIB)),
  },
  'a list after all that': { method: 'GET', path: '/v1/pets?limit=5', headers: AUTH },
};

/** What a client can tell apart: status, the headers the core sets, the body. */
const visible = ({ status, headers, body }: WireResponse) => ({
  status,
  contentType: headers['content-type'],
  location: headers.location,
  wwwAuthenticate: headers['www-authenticate'],
  body: body === '' ? '' : (JSON.parse(body) as unknown),
});

describe('the same answers with or without a body parser upstream', () => {
  const servers: Running[] = [];
  let core: PetStore;
  let plain: Running;
  let parsed: Running;

  const serve = async (configure: (app: Express) => void) => {
    const app = express();
    configure(app);
    const running = await listen(app);
    servers.push(running);
    return running;
  };

  beforeAll(async () => {
    core = memoryStore();
    plain = await serve((app) => app.use('/v1', petStoreRouter(memoryStore())));
    parsed = await serve((app) => {
      app.use(express.json());
      app.use('/v1', petStoreRouter(memoryStore()));
    });
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  // In order: the stores start empty and see the same requests, so ids match too.
  for (const [name, request] of Object.entries(cases)) {
    it(name, async () => {
      const expected = visible(await coreTarget(core).send(request));
      expect(visible(await plain.send(request))).toEqual(expected);
      expect(visible(await parsed.send(request))).toEqual(expected);
    });
  }

  it('refuses malformed invalid UTF-8 the same way (the message differs: body-parser already replaced the bytes)', async () => {
    const request = {
      method: 'POST',
      path: '/v1/pets',
      headers: JSON_AUTH,
      body: Buffer.from([0x7b, 0xff, 0x7d]),
    };
    const { status, body } = await coreTarget(core).send(request);
    const code = (response: WireResponse) => [response.status, JSON.parse(response.body).code];
    expect(code(await plain.send(request))).toEqual([status, JSON.parse(body).code]);
    expect(code(await parsed.send(request))).toEqual([400, 'malformed_json']);
  });

  it('answers every body the same (checked above) and creates the same pets', async () => {
    const digest = async (target: { send(r: WireRequest): Promise<WireResponse> }) =>
      createHash('sha256')
        .update(
          (await target.send({ method: 'GET', path: '/v1/pets?limit=100', headers: AUTH })).body,
        )
        .digest('hex');
    const expected = await digest(coreTarget(core));
    expect(await digest(plain)).toBe(expected);
    expect(await digest(parsed)).toBe(expected);
  });
});

describe('mounted before express.json()', () => {
  it('gets the raw bytes, so even a rounding number is refused as the core alone refuses it', async () => {
    const app = express();
    app.use('/v1', petStoreRouter(memoryStore()));
    app.use(express.json());
    app.post('/host', (req, res) => {
      res.json(req.body);
    });
    const api = await listen(app);
    try {
      const body = '{"name":"Rex","categoryId":1.0000000000000001}';
      const ours = await api.send({ method: 'POST', path: '/v1/pets', headers: JSON_AUTH, body });
      expect([ours.status, JSON.parse(ours.body).code]).toEqual([400, 'invalid_request']);
      const host = await api.send({
        method: 'POST',
        path: '/host',
        headers: JSON_AUTH,
        body: '{"a":1}',
      });
      expect(JSON.parse(host.body)).toEqual({ a: 1 });
    } finally {
      await api.close();
    }
  });
});
