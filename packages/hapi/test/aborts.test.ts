import type { ServerResponse } from 'node:http';
import { hangUpMidBody, waitUntil } from '@petstore/conformance';
import type { ErrorEvent, ResponseEvent } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, memoryStore, type Running, serveHapi } from './helpers.js';

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
    const storage = createMemoryStorage();
    const store = memoryStore({
      storage,
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
    await hangUpMidBody(api.origin, reached, { apiKey: API_KEY });
    await waitUntil(() => responses.length > 0, 10_000);
    expect(responses).toMatchObject([{ status: 499, aborted: true, requestId: 'gone-1' }]);
    expect(errors).toEqual([]);
    expect(logged).toEqual([]);
    expect(writes, 'nothing attempted on the dead socket').toEqual([]);
    expect(await storage.listPets({ limit: 10 })).toEqual([]);
  });
});
