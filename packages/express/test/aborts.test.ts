import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { ErrorEvent, ResponseEvent } from '@petstore/core';
import express, { type Express, type RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { petStoreRouter } from '../src/index.js';
import { API_KEY, memoryStore, serveApp } from './helpers.js';

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

async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
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
    const store = memoryStore({
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
    await hangUpMidBody(api.origin, reached);
    await until(() => responses.length > 0, 10_000);
    return { responses, errors, writeErrors, writes, store };
  };

  it('is answered by nobody, reported as aborted, and is no error', async () => {
    const { responses, errors, writeErrors, writes, store } = await scenario(() => {});
    expect(responses).toMatchObject([{ status: 499, aborted: true, requestId: 'gone-1' }]);
    expect(errors).toEqual([]);
    expect(writeErrors).toEqual([]);
    expect(writes, 'nothing attempted on the dead socket').toEqual([]);
    expect(await store.options.storage.listPets({ limit: 10 })).toEqual([]);
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
