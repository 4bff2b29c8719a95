import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { clientOf } from '../src/address-limits.js';
import { createLimitedServer } from '../src/connection-limits.js';

describe('clientOf: what a connection is counted against', () => {
  it('takes IPv4 addresses as they are, also when written IPv4-mapped', () => {
    expect(clientOf('127.0.0.2')).toBe('127.0.0.2');
    expect(clientOf('::ffff:10.1.2.3')).toBe('10.1.2.3');
  });

  it('groups IPv6 addresses by their /64 by default: one host, one client', () => {
    const a = clientOf('2001:db8:1:2::1');
    expect(a).toBe('2001:db8:1:2:0:0:0:0/64');
    expect(clientOf('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(a);
    expect(clientOf('2001:db8:1:3::1')).not.toBe(a);
    expect(clientOf('fe80::1%eth0')).toBe('fe80:0:0:0:0:0:0:0/64');
  });

  it('takes another prefix length when told, 128 counting each address apart', () => {
    expect(clientOf('2001:db8:1:2::1', 48)).toBe('2001:db8:1:0:0:0:0:0/48');
    expect(clientOf('2001:db8:1:2::1', 56)).toBe('2001:db8:1:0:0:0:0:0/56');
    expect(clientOf('2001:db8:1:2ff::1', 56)).toBe('2001:db8:1:200:0:0:0:0/56');
    expect(clientOf('2001:db8::1', 128)).toBe('2001:db8::1');
  });
});

const LIMITS = {
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 100,
  maxConnectionsPerAddress: 2,
  trustedProxies: [],
  firstByteTimeoutMs: 5_000,
};

/** All a socket receives until it closes, or `ms` passes. */
const received = (socket: Socket, ms = 3_000): Promise<{ text: string; closed: boolean }> =>
  new Promise((resolve) => {
    let text = '';
    const timer = setTimeout(() => resolve({ text, closed: false }), ms);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
  });

describe('a connection past its client’s share', () => {
  let server: Server;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const open = async (port: number): Promise<Socket> => {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    await new Promise((resolve) => socket.once('connect', resolve));
    return socket;
  };

  it('is answered a JSON 503 with Retry-After before any read, counted, then closed', async () => {
    const refused: string[] = [];
    server = createLimitedServer(LIMITS, (client) => refused.push(client));
    server.on('request', (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;

    const held = [await open(port), await open(port)];
    await new Promise((resolve) => setTimeout(resolve, 50));
    const third = await open(port);
    // Sent at once: the answer does not wait for a request.
    const { text, closed } = await received(third);
    expect(closed).toBe(true);
    const [head = '', body = ''] = text.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(head).toMatch(/\r\nRetry-After: 1\r\n/);
    expect(head).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
    expect(JSON.parse(body)).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(refused).toEqual(['127.0.0.1']);

    // The two held connections are served as before.
    const first = held[0] as Socket;
    const answer = received(first, 1_000);
    first.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n');
    expect((await answer).text).toMatch(/^HTTP\/1\.1 200 OK/);
  });

  it('a request sent on a refused connection is never handled', async () => {
    let handled = 0;
    server = createLimitedServer({ ...LIMITS, maxConnectionsPerAddress: 1 });
    server.on('request', (_req, res) => {
      handled++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await open(port);
    const refused = await open(port);
    refused.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n');
    const { text } = await received(refused);
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text.match(/HTTP\/1\.1/g)).toHaveLength(1);
    expect(handled).toBe(0);
  });
});
