import type { PetStore, PetStoreRequest, PetStoreResponse } from '@petstore/core';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { petStoreRouter } from '../src/index.js';
import { memoryStore, serveApp } from './helpers.js';

/** A store that answers with what it was handed: checks the translation alone. */
function echoStore(): PetStore {
  const real = memoryStore();
  const describeBody = async (body: PetStoreRequest['body']): Promise<unknown> => {
    if (body === undefined || typeof body === 'string') return body;
    if (body instanceof Uint8Array) return { bytes: Buffer.from(body).toString() };
    // The unread stream, as the Node layer hands it over: read whole when asked.
    if ('kind' in body && body.kind === 'read') {
      const read = await body.read(1 << 20);
      return { stream: typeof read === 'string' ? read : Buffer.from(read).toString() };
    }
    if (Symbol.asyncIterator in body) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of body) chunks.push(chunk);
      return { stream: Buffer.concat(chunks).toString() };
    }
    return body;
  };
  return {
    ...real,
    async handle(request): Promise<PetStoreResponse> {
      const { method, path, query, publicPath, headers } = request;
      const seen = {
        method,
        path,
        query,
        publicPath,
        host: headers.host !== undefined,
        body: await describeBody(request.body),
      };
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(seen),
      };
    },
  };
}

describe('request translation', () => {
  it('hands over the path below the mount and the raw query, neither decoded', async () => {
    const api = await serveApp((app) => app.use('/v1', petStoreRouter(echoStore())));
    const seen = JSON.parse(
      (await api.send({ method: 'GET', path: '/v1/pets/%31?limit=%31&x=a+b' })).body,
    );
    expect(seen).toMatchObject({
      method: 'GET',
      path: '/pets/%31',
      query: 'limit=%31&x=a+b',
      publicPath: '/v1',
      host: true,
    });
    const root = JSON.parse((await api.send({ method: 'DELETE', path: '/v1' })).body);
    expect(root).toMatchObject({ method: 'DELETE', path: '/', query: '' });
  });

  it('hands over the unread stream when no parser ran', async () => {
    const api = await serveApp((app) => app.use('/v1', petStoreRouter(echoStore())));
    const headers = { 'content-type': 'application/json' };
    const seen = JSON.parse(
      (await api.send({ method: 'POST', path: '/v1/pets', headers, body: '{"a":1}' })).body,
    );
    expect(seen.body).toEqual({ stream: '{"a":1}' });
  });

  it("hands over express.json()'s value with the wire size, and an empty body as empty", async () => {
    const api = await serveApp((app) =>
      app.use('/v1', express.json(), petStoreRouter(echoStore())),
    );
    const headers = { 'content-type': 'application/json' };
    const parsed = JSON.parse(
      (await api.send({ method: 'POST', path: '/v1/pets', headers, body: '{"a": 1}' })).body,
    );
    expect(parsed.body).toEqual({ kind: 'parsed', value: { a: 1 }, byteLength: 8 });
    // body-parser reads an empty body as `{}`; the core must see it as empty.
    const empty = JSON.parse(
      (await api.send({ method: 'POST', path: '/v1/pets', headers, body: '' })).body,
    );
    expect(empty.body).toEqual({ stream: '' });
    const chunks = { chunks: [new Uint8Array(0)] };
    const emptyChunked = JSON.parse(
      (await api.send({ method: 'POST', path: '/v1/pets', headers, body: chunks })).body,
    );
    expect(emptyChunked.body).toEqual({ stream: '' });
  });

  it('hands over text and bytes from express.text() and express.raw() as they are', async () => {
    const api = await serveApp((app) => {
      app.use('/text', express.text({ type: 'application/json' }), petStoreRouter(echoStore()));
      app.use('/raw', express.raw({ type: 'application/json' }), petStoreRouter(echoStore()));
    });
    const headers = { 'content-type': 'application/json' };
    const text = JSON.parse(
      (await api.send({ method: 'POST', path: '/text/pets', headers, body: '{"a": 1}' })).body,
    );
    expect(text.body).toBe('{"a": 1}');
    const raw = JSON.parse(
      (await api.send({ method: 'POST', path: '/raw/pets', headers, body: '{"a": 1}' })).body,
    );
    expect(raw.body).toEqual({ bytes: '{"a": 1}' });
  });

  it('hands over what body-parser refused, as the core would have read it', async () => {
    const api = await serveApp((app) =>
      app.use('/v1', express.json({ limit: 10 }), petStoreRouter(echoStore())),
    );
    const send = async (headers: Record<string, string>, body: string) =>
      JSON.parse((await api.send({ method: 'POST', path: '/v1/pets', headers, body })).body).body;
    expect(await send({ 'content-type': 'application/json' }, '"abc"')).toBe('"abc"');
    expect(await send({ 'content-type': 'application/json' }, '{"a":')).toBe('{"a":');
    expect(await send({ 'content-type': 'application/json' }, '{"a":"long enough"}')).toEqual({
      kind: 'unreadable',
      reason: 'too_large',
    });
    // Refused on the charset alone, before reading: the core gets the untouched stream.
    expect(await send({ 'content-type': 'application/json; charset=latin1' }, '{}')).toEqual({
      stream: '{}',
    });
  });
});
