import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import { createServer as createHttp2Server, connect as http2Connect } from 'node:http2';
import { type AddressInfo, connect } from 'node:net';
import { type RunningServer, serveNodeServer } from '@petstore/conformance';
import {
  createPetStore,
  type PetStore,
  type PetStoreOptions,
  type PetStoreRequest,
  type ResponseEvent,
} from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { petStoreListener } from '../src/index.js';
import { chain } from './helpers.js';

const KEY = 'node-listener-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const PET = '{"name":"Rex","categoryId":1}';

const memoryStore = (options: Partial<PetStoreOptions> = {}): PetStore =>
  createPetStore({ storage: createMemoryStorage(), apiKeys: [KEY], ...options });

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});
const serve = async (listener: RequestListener) => {
  const server = await serveNodeServer(createServer(listener));
  running.push(server);
  return server;
};

/** One request as raw bytes on a fresh socket; the whole answer once the server closes it. */
function raw(origin: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(origin).port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => resolve(answer));
    socket.write(text);
  });
}

describe('as the whole server', () => {
  it("answers the core's JSON 404 outside the base path, with no request id", async () => {
    const api = await serve(petStoreListener(memoryStore(), { mountPath: '/v1' }));
    for (const path of ['/', '/v2/pets', '/v1x/pets', '/pets']) {
      const response = await api.send({ method: 'GET', path, headers: AUTH });
      expect([path, response.status, response.headers['content-type']]).toEqual([
        path,
        404,
        'application/json; charset=utf-8',
      ]);
      expect(JSON.parse(response.body)).toMatchObject({ code: 'not_found', status: 404 });
      expect(response.headers['x-request-id']).toBeUndefined();
    }
    const ours = await api.send({ method: 'GET', path: '/v1?limit=1', headers: AUTH });
    expect(ours.status).toBe(404); // the mount itself is the core's: no route there
    expect(ours.headers['x-request-id']).toBeDefined();
  });

  it('serves every path without a base path', async () => {
    const api = await serve(petStoreListener(memoryStore()));
    const created = await api.send({
      method: 'POST',
      path: '/pets',
      headers: JSON_AUTH,
      body: PET,
    });
    expect([created.status, created.headers.location]).toEqual([201, '/pets/1']);
  });

  it('refuses a mount path that is not a plain path, and reads the usual spellings of one', async () => {
    for (const mountPath of ['/v1?x', 'https://x/v1', '/v1/../admin', '//evil', '/v 1'])
      expect(() => petStoreListener(memoryStore(), { mountPath }), mountPath).toThrow(TypeError);
    for (const mountPath of ['v1', '/v1/']) {
      const api = await serve(petStoreListener(memoryStore(), { mountPath }));
      const created = await api.send({
        method: 'POST',
        path: '/v1/pets',
        headers: JSON_AUTH,
        body: PET,
      });
      expect([mountPath, created.headers.location]).toEqual([mountPath, '/v1/pets/1']);
    }
  });

  it('reads an absolute-form target (as sent to a proxy) by its path', async () => {
    const api = await serve(petStoreListener(memoryStore(), { mountPath: '/v1' }));
    const answer = await raw(
      api.origin,
      `POST ${api.origin}/v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${PET.length}\r\nConnection: close\r\n\r\n${PET}`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(answer).toMatch(/\r\nlocation: \/v1\/pets\/1\r\n/i);
  });

  it('answers a JSON 500 and reports it when the response cannot be written', async () => {
    const errors: unknown[] = [];
    const store: PetStore = {
      ...memoryStore(),
      handle: async () => ({ status: 200, headers: { 'x-broken': 'line\nbreak' }, body: '{}' }),
    };
    const api = await serve(
      petStoreListener(store, { mountPath: '/v1', onWriteError: (error) => errors.push(error) }),
    );
    const response = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([response.status, JSON.parse(response.body).code]).toEqual([500, 'internal_error']);
    expect((errors[0] as { code?: string }).code).toBe('ERR_INVALID_CHAR');
  });
});

describe('under load shedding', () => {
  it('answers 503 at once, before the body is read: the answer comes while most of it is unsent', async () => {
    const events: ResponseEvent[] = [];
    const store = memoryStore({
      // Large bodies are welcome here: without shedding, this one would be waited for.
      maxBodyBytes: 64 * 1024 * 1024,
      loadShedding: { maxEventLoopDelayMs: 100, retryAfterSeconds: 3 },
      hooks: { onResponse: (event) => events.push(event) },
    });
    const listener = petStoreListener(store, { mountPath: '/v1' });
    let afterFirst: (() => void) | undefined;
    const api = await serve((req, res) => {
      listener(req, res);
      const then = afterFirst;
      afterFirst = undefined;
      then?.();
    });
    const socket = connect((api.server.address() as AddressInfo).port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', () => {});
    const closed = once(socket, 'close');
    afterFirst = () => {
      // The first request armed the store's timer. Now the headers and 1 KiB of a 64 MiB body
      // go out, and the loop is held past the limit (a backlog would do the same) before the
      // server can read them.
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n` +
          '{"name":"'.padEnd(1024, 'x'),
      );
      const end = performance.now() + 400;
      while (performance.now() < end) {
        // held
      }
    };
    const first = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect(first.status).toBe(200);
    await closed;
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head).toMatch(/\r\nretry-after: 3\r\n/i);
    // What is left of the body is no next request: the connection ends with the answer.
    expect(head).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(body)).toEqual({
      code: 'service_unavailable',
      message: 'The pet store is overloaded; retry later.',
      status: 503,
    });
    expect(events.map((event) => [event.status, event.cause])).toEqual([
      [200, undefined],
      [503, 'shed_event_loop_delay'],
    ]);
  });
});

describe('as Connect-style middleware (a third `next` argument)', () => {
  it('passes requests outside the base path on, and answers those under it', async () => {
    const api = await serve(
      chain(
        (req, res, next) => {
          if (req.url !== '/healthz') return next();
          res.end('ok');
        },
        petStoreListener(memoryStore(), { mountPath: '/v1' }),
      ),
    );
    const health = await api.send({ method: 'GET', path: '/healthz' });
    expect([health.status, health.body]).toEqual([200, 'ok']);
    for (const path of ['/elsewhere', '/v1x/pets']) {
      const host = await api.send({ method: 'GET', path, headers: AUTH });
      expect([path, host.status, host.body]).toEqual([path, 404, 'host 404']);
    }
    const ours = await api.send({ method: 'GET', path: '/v1/pets', headers: AUTH });
    expect([ours.status, ours.body]).toEqual([200, '[]']);
  });

  it('takes a body a parser upstream already read', async () => {
    const api = await serve(
      chain(
        async (req, _res, next) => {
          const chunks: Buffer[] = [];
          for await (const chunk of req) chunks.push(chunk as Buffer);
          Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString()) });
          next();
        },
        petStoreListener(memoryStore(), { mountPath: '/v1' }),
      ),
    );
    const created = await api.send({
      method: 'POST',
      path: '/v1/pets',
      headers: JSON_AUTH,
      body: PET,
    });
    expect([created.status, JSON.parse(created.body).name]).toEqual([201, 'Rex']);
  });

  it('links through the mount path the framework cut off req.url', async () => {
    const api = await serve(
      chain(['/tenant', petStoreListener(memoryStore(), { mountPath: '/v1' })]),
    );
    const created = await api.send({
      method: 'POST',
      path: '/tenant/v1/pets?x=1',
      headers: JSON_AUTH,
      body: PET,
    });
    expect([created.status, created.headers.location]).toEqual([201, '/tenant/v1/pets/1']);
  });

  it('answers nobody when the client hung up before the body was read', async () => {
    const responses: ResponseEvent[] = [];
    const errors: unknown[] = [];
    const writes: string[] = [];
    const store = memoryStore({
      hooks: {
        onResponse: (event) => responses.push(event),
        onError: (event) => errors.push(event),
      },
    });
    let arrived = () => {};
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const api = await serve(
      chain(
        (req, res, next) => {
          for (const name of ['writeHead', 'end'] as const) {
            const original = res[name].bind(res) as (...args: unknown[]) => unknown;
            Object.assign(res, {
              [name]: (...args: unknown[]) => {
                writes.push(name);
                return original(...args);
              },
            });
          }
          arrived();
          // A host middleware still busy (say, with its own auth) when the client goes away.
          req.once('aborted', () => setTimeout(next, 50));
        },
        petStoreListener(store, { mountPath: '/v1' }),
      ),
    );
    const socket = connect((api.server.address() as AddressInfo).port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
    );
    await reached;
    socket.destroy();
    const deadline = Date.now() + 10_000;
    while (responses.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(responses).toMatchObject([{ status: 499, aborted: true }]);
    expect(errors).toEqual([]);
    expect(writes).toEqual([]);
  });
});

describe('over HTTP/2 (the compatibility API)', () => {
  it('hands the core no pseudo-headers, and answers 413 without a Connection header', async () => {
    const seen: PetStoreRequest[] = [];
    const real = memoryStore({ maxBodyBytes: 64 });
    const store: PetStore = {
      ...real,
      handle: (request) => {
        seen.push(request);
        return real.handle(request);
      },
    };
    const server = createHttp2Server(petStoreListener(store, { mountPath: '/v1' }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = http2Connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const send = (headers: Record<string, string>, body?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request(headers);
        let status = 0;
        let text = '';
        stream.on('response', (h) => {
          status = Number(h[':status']);
        });
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => {
          text += chunk;
        });
        stream.on('end', () => resolve({ status, body: text }));
        stream.on('error', reject);
        stream.end(body);
      });
    // Node drops a Connection header on HTTP/2, with a warning (once a process): we never set one there.
    const warnings: Error[] = [];
    const warned = (warning: Error) => warnings.push(warning);
    process.on('warning', warned);
    try {
      const created = await send({ ':method': 'POST', ':path': '/v1/pets', ...JSON_AUTH }, PET);
      expect(created.status).toBe(201);
      const list = await send({ ':method': 'GET', ':path': '/v1/pets?limit=1', ...AUTH });
      expect([list.status, JSON.parse(list.body)[0].name]).toEqual([200, 'Rex']);
      expect(seen[1]).toMatchObject({ method: 'GET', path: '/pets', query: 'limit=1' });
      expect(seen.flatMap((request) => Object.keys(request.headers))).not.toContainEqual(
        expect.stringMatching(/^:/),
      );
      const big = await send(
        { ':method': 'POST', ':path': '/v1/pets', ...JSON_AUTH },
        JSON.stringify({ name: 'x'.repeat(256 * 1024), categoryId: 1 }),
      );
      expect([big.status, JSON.parse(big.body).code]).toEqual([413, 'payload_too_large']);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map(String)).toEqual([]);
    } finally {
      process.off('warning', warned);
      session.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
