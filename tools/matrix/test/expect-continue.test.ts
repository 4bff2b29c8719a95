import { connect, type Socket } from 'node:net';
import type { RunningServer } from '@petstore/conformance';
import { createPetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTS, type Host } from '../src/index.js';

// `Expect: 100-continue` asks the server whether to send the body. The answer may only be yes
// (100 Continue) once the request is authenticated: a client without a key gets its 401 alone.
const KEY = 'expect-continue-key-0123';
const BODY = '{"name":"Rex","categoryId":1}';
const head = (authorization: string) =>
  `POST /v1/pets HTTP/1.1\r\nHost: t\r\n${authorization}Content-Type: application/json\r\n` +
  `Content-Length: ${BODY.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;

/** What the server sent until `done(text)` says enough, or `ms` passed. */
function readUntil(socket: Socket, done: (text: string) => boolean, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const finish = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(text);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (done(text)) finish();
    };
    const timer = setTimeout(finish, ms);
    socket.on('data', onData);
    socket.once('close', finish);
  });
}

const statusLines = (text: string) => text.match(/^HTTP\/1\.1 \d{3}[^\r]*/gm) ?? [];

const listening = Object.entries(HOSTS as Record<string, Host>).filter(
  (entry): entry is [string, Host & Required<Pick<Host, 'listen'>>] =>
    entry[1].listen !== undefined,
);

describe.each(listening)('%s, Expect: 100-continue', (_name, host) => {
  let api: RunningServer;
  let port: number;
  beforeAll(async () => {
    const store = createPetStore({ storage: createMemoryStorage(), apiKeys: [KEY] });
    api = await host.listen(store, { mountPath: '/v1' });
    port = Number(new URL(api.origin).port);
  });
  afterAll(() => api.close());

  it('answers a client without a key 401 at once, with no 100 Continue before it', async () => {
    const socket = connect(port, '127.0.0.1');
    socket.write(head(''));
    const text = await readUntil(socket, (seen) => /\r\n\r\n[\s\S]*"status":401/.test(seen), 3000);
    socket.destroy();
    expect(statusLines(text)).toEqual(['HTTP/1.1 401 Unauthorized']);
  });

  it('sends 100 Continue to an authenticated client, then takes its body', async () => {
    const socket = connect(port, '127.0.0.1');
    socket.write(head(`Authorization: Bearer ${KEY}\r\n`));
    const first = await readUntil(socket, (seen) => seen.includes('\r\n\r\n'), 3000);
    expect(statusLines(first)).toEqual(['HTTP/1.1 100 Continue']);
    socket.write(BODY);
    const rest = await readUntil(socket, (seen) => seen.includes('"status":"available"'), 3000);
    socket.destroy();
    expect(statusLines(rest)).toEqual(['HTTP/1.1 201 Created']);
  });
});
