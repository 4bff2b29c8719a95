import type { ServerResponse } from 'node:http';
import { hangUpMidBody, waitUntil } from '@petstore/conformance';
import type { ErrorEvent, ResponseEvent } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import express, { type Express, type RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { petStoreRouter } from '../src/index.js';
import { API_KEY, memoryStore, serveApp } from './helpers.js';

/** What was attempted on the response, by anyone after this middleware. */
function watchWrites(writes: string[]): RequestHandler {
  return (_req, res, next) => {
    const target = res as ServerResponse;
    for (const name of ['writeHead', 'write', 'end'] as const) {
      const original = target[name].bind(target) as (...args: unknown[]) => unknown;
      (target as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        writes.push(name);
        return original(...args);
      };
    }
    next();
  };
}

describe('a client that hangs up while the body is read', () => {
  const scenario = async (configure: (app: Express, seen: () => void) => void) => {
    const responses: ResponseEvent[] = [];
    const errors: ErrorEvent[] = [];
    const writeErrors: unknown[] = [];
    const writes: string[] = [];
    let seen = () => {};
    const reached = new Promise<void>((resolve) => {
      seen = resolve;
    });
    const storage = createMemoryStorage();
    const store = memoryStore({
      storage,
      hooks: {
        onResponse: (event) => responses.push(event),
        onError: (event) => errors.push(event),
      },
    });
    const api = await serveApp((app) => {
      app.use(watchWrites(writes));
      configure(app, seen);
      const arrived: RequestHandler = (_req, _res, next) => {
        seen();
        next();
      };
      app.use(
        '/v1',
        arrived,
        petStoreRouter(store, { onWriteError: (error) => writeErrors.push(error) }),
      );
    });
    await hangUpMidBody(api.origin, reached, { apiKey: API_KEY });
    await waitUntil(() => responses.length > 0, 10_000);
    return { responses, errors, writeErrors, writes, storage };
  };

  it('is answered by nobody, reported as aborted, and is no error', async () => {
    const { responses, errors, writeErrors, writes, storage } = await scenario(() => {});
    expect(responses).toMatchObject([{ status: 499, aborted: true, requestId: 'gone-1' }]);
    expect(errors).toEqual([]);
    expect(writeErrors).toEqual([]);
    expect(writes, 'nothing attempted on the dead socket').toEqual([]);
    expect(await storage.listPets({ limit: 10 })).toEqual([]);
  });

  it('is the same when express.json() upstream was reading the body', async () => {
    const { responses, errors, writeErrors, writes } = await scenario((app, seen) => {
      app.use((_req, _res, next) => {
        seen();
        next();
      });
      app.use(express.json());
    });
    expect(responses).toMatchObject([{ status: 499, aborted: true, requestId: 'gone-1' }]);
    expect(errors).toEqual([]);
    expect(writeErrors).toEqual([]);
    expect(writes, 'nothing attempted on the dead socket').toEqual([]);
  });
});
