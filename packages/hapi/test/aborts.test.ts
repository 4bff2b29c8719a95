import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { ErrorEvent, ResponseEvent } from '@petstore/core';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, memoryStore, type Running, serveHapi } from './helpers.js';

/** Sends headers and half a body over a raw socket, then hangs up once `when` settles. */
async function hangUpMidBody(origin: string, when: Promise<unknown>): Promise<void> {
  const socket = connect(Number(new URL(origin).port), '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    'POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
      `Authorization: Bearer ${API_KEY}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 100\r\nX-Request-Id: gone-1\r\n\r\n{"name":"Half a',
  );
  await when;
  await new Promise<void>((resolve) => socket.destroy().once('close', () => resolve()));
}

async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

describe('a client that hangs up while the body is read', () => {
  let api: Running | undefined;
  afterEach(async () => {
    await api?.close();
  });

  it('is answered by nobody, reported as aborted, and is no error', async () => {
    const responses: ResponseEvent[] = [];
    const errors: ErrorEvent[] = [];
    const logged: string[][] = [];
    const writes: string[] = [];
    let seen = () => {};
    const reached = new Promise<void>((resolve) => {
      seen = resolve;
    });
    const store = memoryStore({
      apiKeys: undefined,
      // The core has the request and is about to read its body.
      verify: (token) => {
        seen();
        return token === API_KEY;
      },
      hooks: {
        onResponse: (event) => responses.push(event),
        onError: (event) => errors.push(event),
      },
    });
    api = await serveHapi(store, {
      host: (server) => {
        server.events.on('request', (_request, event) => {
          if (event.tags.includes('petstore')) logged.push(event.tags);
        });
        // Watches the raw response for anything written after the plugin's handler ran.
        server.ext('onPreHandler', (request, h) => {
          const res = request.raw.res as ServerResponse;
          for (const name of ['writeHead', 'write', 'end'] as const) {
            const original = res[name].bind(res) as (...args: unknown[]) => unknown;
            (res as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
              writes.push(name);
              return original(...args);
            };
          }
          return h.continue;
        });
      },
    });
    await hangUpMidBody(api.origin, reached);
    await until(() => responses.length > 0, 10_000);
    expect(responses).toMatchObject([{ status: 499, aborted: true, requestId: 'gone-1' }]);
    expect(errors).toEqual([]);
    expect(logged).toEqual([]);
    expect(writes, 'nothing attempted on the dead socket').toEqual([]);
    expect(await store.options.storage.listPets({ limit: 10 })).toEqual([]);
  });
});
