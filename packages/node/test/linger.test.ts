import { createServer } from 'node:http';
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net';
import { type RunningServer, serveNodeServer } from '@petstore/conformance';
import { createPetStore, type PetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { installClientErrorHandler, lingeringClose, petStoreListener } from '../src/index.js';

// An answer sent before the body is read (413, 401, 415) must reach a client that goes on
// sending that body: the server reads and throws away what still comes instead of closing at
// once, which would make the kernel reset the connection under the client's writes.

const KEY = 'node-linger-key-0123';
const MIB = 1024 * 1024;
const BODY_BYTES = 2 * MIB;

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function serveStore(store: PetStore, withHandler: boolean): Promise<number> {
  const server = createServer(petStoreListener(store, { mountPath: '/v1' }));
  if (withHandler) installClientErrorHandler(server);
  const api = await serveNodeServer(server);
  running.push(api);
  return (api.server.address() as AddressInfo).port;
}

interface Sent {
  readonly answer: string;
  /** ECONNRESET, EPIPE... when the connection was reset under the client. */
  readonly error: string | undefined;
  /** The server ended its side (FIN). */
  readonly ended: boolean;
}

/**
 * Sends `head` and the body's first 64 KiB; once the answer is in (the server answers before
 * reading the rest), waits `pauseMs` and sends the rest (`bytes` in all, as a client still
 * writing its body does), and ends. Half-open: the server's FIN after its answer
 * does not end our side.
 */
function sendWhole(port: number, head: string, bytes: number, pauseMs = 50): Promise<Sent> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    let error: string | undefined;
    let ended = false;
    socket.setEncoding('latin1');
    const answered = new Promise<void>((resolve) => {
      socket.on('data', (chunk: string) => {
        answer += chunk;
        resolve();
      });
      setTimeout(resolve, 2000);
    });
    socket.on('error', (cause: NodeJS.ErrnoException) => {
      error ??= cause.code ?? cause.message;
    });
    socket.on('end', () => {
      ended = true;
    });
    socket.on('close', () => resolve({ answer, error, ended }));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    void (async () => {
      socket.write(head);
      socket.write(chunk.subarray(0, Math.min(chunk.length, bytes)));
      await answered;
      await new Promise((next) => setTimeout(next, pauseMs));
      for (let sent = chunk.length; sent < bytes && !socket.destroyed; sent += chunk.length) {
        if (!socket.write(chunk.subarray(0, Math.min(chunk.length, bytes - sent)))) {
          await new Promise((next) => {
            socket.once('drain', next);
            socket.once('close', next);
          });
        }
      }
      if (!socket.destroyed) socket.end();
    })();
  });
}

const post = (headers: string, length: number) =>
  `POST /v1/pets HTTP/1.1\r\nHost: t\r\n${headers}Content-Length: ${length}\r\n\r\n`;

const CASES = [
  [
    '413 (a key, an oversized JSON body)',
    `Authorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n`,
    413,
  ],
  ['401 (no key)', 'Content-Type: application/json\r\n', 401],
  ['415 (text/plain)', `Authorization: Bearer ${KEY}\r\nContent-Type: text/plain\r\n`, 415],
] as const;

describe('an answer sent before a 2 MB body is read', () => {
  for (const withHandler of [false, true]) {
    const how = withHandler ? 'with installClientErrorHandler' : 'petStoreListener alone';
    it.each(CASES)(
      `%s reaches a client that sends the whole body (${how})`,
      async (_name, headers, status) => {
        const port = await serveStore(
          createPetStore({ storage: createMemoryStorage(), apiKeys: [KEY] }),
          withHandler,
        );
        for (let n = 0; n < 3; n++) {
          const sent = await sendWhole(port, post(headers, BODY_BYTES), BODY_BYTES);
          expect(sent.answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
          expect(sent.answer).toMatch(/\r\nconnection: close\r\n/i);
          // Ended by the server's FIN after the client's own end, never reset under its writes.
          expect(sent.error).toBeUndefined();
          expect(sent.ended).toBe(true);
        }
      },
    );
  }

  it('a 431 for headers too large reaches a client that goes on sending', async () => {
    const port = await serveStore(
      createPetStore({ storage: createMemoryStorage(), apiKeys: [KEY] }),
      true,
    );
    const head = `POST /v1/pets HTTP/1.1\r\nHost: t\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\n`;
    const sent = await sendWhole(port, head, BODY_BYTES);
    expect(sent.answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(sent.error).toBeUndefined();
    expect(sent.ended).toBe(true);
  });
});

describe('lingeringClose', () => {
  async function lingeringServer(limits: { ms: number; bytes: number }) {
    const closed: { at: number; read: number }[] = [];
    const server = createNetServer((socket: Socket) => {
      const started = performance.now();
      socket.write('bye\n');
      lingeringClose(socket, limits);
      socket.once('close', () =>
        closed.push({ at: performance.now() - started, read: socket.bytesRead }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    return { port, closed, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('gives up after its time on a client that never stops sending', async () => {
    const server = await lingeringServer({ ms: 300, bytes: 100 * MIB });
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    const writer = setInterval(() => socket.write('x'.repeat(100)), 20);
    // Reset by the server once its time is up: `once` would reject on that error.
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(writer);
    await server.close();
    expect(server.closed[0]?.at).toBeGreaterThanOrEqual(290);
    expect(server.closed[0]?.at).toBeLessThan(2000);
  });

  it('gives up after its bytes on a client that sends fast', async () => {
    const server = await lingeringServer({ ms: 60_000, bytes: MIB });
    const sent = await sendWhole(server.port, '', 64 * MIB, 0);
    await server.close();
    expect(sent.answer).toBe('bye\n');
    expect(server.closed[0]?.read).toBeGreaterThan(MIB);
    expect(server.closed[0]?.read).toBeLessThan(64 * MIB);
    expect(server.closed[0]?.at).toBeLessThan(10_000);
  });
});
