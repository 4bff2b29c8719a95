import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { shedAtAccept } from '../src/shed-at-accept.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** What a connection from `from` reads until the server closes it, having sent nothing. */
function unasked(port: number, from: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(text));
    socket.setTimeout(1_000, () => socket.destroy());
  });
}

it('while shedding, a new connection is answered the JSON 503 before it sends a byte; otherwise the server serves it', async () => {
  let shed: string | undefined = 'shed_event_loop_delay';
  let refused = 0;
  let parsed = 0;
  const server = createServer((_req, res) => {
    parsed++;
    res.end('served');
  });
  servers.push(server);
  shedAtAccept(server, {
    shedding: () => shed,
    retryAfterSeconds: 7,
    trustedProxies: ['127.0.0.3'],
    onRefused: () => refused++,
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const answer = await unasked(port, '127.0.0.2');
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
  expect(head).toContain('Content-Type: application/json; charset=utf-8');
  expect(head).toContain('Retry-After: 7');
  expect(head).toContain('Connection: close');
  expect(JSON.parse(body)).toEqual({
    code: 'service_unavailable',
    message: 'The pet store is overloaded; retry later.',
    status: 503,
  });
  expect(refused).toBe(1);

  // The balancer's connections (TRUSTED_PROXIES) are let in: its health checks must pass.
  const fromBalancer = await fetchFrom(port, '127.0.0.3');
  expect(fromBalancer).toBe('served');
  shed = undefined;
  expect(await fetchFrom(port, '127.0.0.2')).toBe('served');
  expect([refused, parsed]).toEqual([1, 2]);
});

/** One GET from `from` on a new connection; the body. */
function fetchFrom(port: number, from: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from }, () =>
      socket.write('GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n'),
    );
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.once('close', () => resolve(text.split('\r\n\r\n')[1] ?? ''));
  });
}
