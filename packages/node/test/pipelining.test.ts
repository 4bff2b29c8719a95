import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serializePipelinedRequests } from '../src/index.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function listen(
  handler: Handler,
  serialized: boolean,
): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  if (serialized) serializePipelinedRequests(server);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

/** Writes `bytes` at once on a new connection; resolves with all it read once `count` answers came. */
function pipelined(port: number, bytes: string | Buffer, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.split('HTTP/1.1 ').length - 1 >= count) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(bytes);
  });
}

const get = (n: number) => `GET /n/${n} HTTP/1.1\r\nHost: t\r\n\r\n`;
const post = (n: number, body: string) =>
  `POST /n/${n} HTTP/1.1\r\nHost: t\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const chunked = (n: number, parts: readonly string[]) =>
  `POST /n/${n} HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n${parts
    .map((part) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`)
    .join('')}0\r\n\r\n`;

/** Answers each request after a short wait, with its number and body; counts how many overlap. */
function echoing() {
  const open = new Map<Socket, number>();
  let mostAtOnce = 0;
  const handler: Handler = (req, res) => {
    const now = (open.get(req.socket) ?? 0) + 1;
    open.set(req.socket, now);
    mostAtOnce = Math.max(mostAtOnce, now);
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      setTimeout(() => {
        open.set(req.socket, (open.get(req.socket) ?? 1) - 1);
        const text = `${req.url} ${body}`;
        res.writeHead(200, { 'content-length': Buffer.byteLength(text) }).end(text);
      }, 1);
    });
  };
  return { handler, mostAtOnce: () => mostAtOnce };
}

/** The bodies of the answers in `text`, in order. */
const answers = (text: string): string[] =>
  text
    .split('HTTP/1.1 200 OK')
    .slice(1)
    .map((answer) => answer.slice(answer.indexOf('\r\n\r\n') + 4));

describe('serializePipelinedRequests', () => {
  it('answers pipelined requests in order, one at a time per connection, bodies and all', async () => {
    const requests: string[] = [];
    const expected: string[] = [];
    for (let n = 0; n < 60; n++) {
      if (n % 3 === 0) {
        requests.push(get(n));
        expected.push(`/n/${n} `);
      } else if (n % 3 === 1) {
        // A body holding a blank line: the parser, not the split, says where a request ends.
        const body = `{"n":${n}}\r\n\r\nstill the body`;
        requests.push(post(n, body));
        expected.push(`/n/${n} ${body}`);
      } else {
        requests.push(chunked(n, ['ab', 'cd\r\n\r\n', 'ef']));
        expected.push(`/n/${n} abcd\r\n\r\nef`);
      }
    }
    for (const serialized of [false, true]) {
      const { handler, mostAtOnce } = echoing();
      const { port } = await listen(handler, serialized);
      const text = await pipelined(port, requests.join(''), requests.length);
      expect(answers(text)).toEqual(expected);
      // node:http alone hands the handler every request of a read at once.
      if (serialized) expect(mostAtOnce()).toBe(1);
      else expect(mostAtOnce()).toBeGreaterThan(1);
    }
  });

  it('runs at most one request per connection in a turn of the event loop, however deep the pipelines', async () => {
    for (const serialized of [false, true]) {
      // Turns of the event loop, counted by an immediate that re-arms itself.
      let turn = 0;
      let counting = true;
      const tick = () => {
        turn++;
        if (counting) setImmediate(tick);
      };
      setImmediate(tick);
      const perTurn = new Map<number, number>();
      const { port } = await listen((_req, res) => {
        perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
        res.writeHead(401, { 'content-length': '2' }).end('no');
      }, serialized);
      const connections = 4;
      const depth = 300;
      const texts = await Promise.all(
        Array.from({ length: connections }, () =>
          pipelined(port, Array.from({ length: depth }, (_, n) => get(n)).join(''), depth),
        ),
      );
      counting = false;
      expect(texts.map((text) => text.split('HTTP/1.1 401').length - 1)).toEqual(
        Array(connections).fill(depth),
      );
      const most = Math.max(...perTurn.values());
      if (serialized) expect(most).toBeLessThanOrEqual(connections);
      else expect(most).toBeGreaterThanOrEqual(depth);
    }
  });

  it('a request on another connection is answered while deep pipelines wait their turns', async () => {
    const order: string[] = [];
    const { port } = await listen((req, res) => {
      order.push(req.headers['x-who'] === 'other' ? 'other' : 'deep');
      res.writeHead(200, { 'content-length': '2' }).end('ok');
    }, true);
    const deep = Array.from(
      { length: 500 },
      (_, n) => `GET /n/${n} HTTP/1.1\r\nHost: t\r\nX-Who: deep\r\n\r\n`,
    ).join('');
    const flood = Array.from({ length: 8 }, () => pipelined(port, deep, 500));
    // Once the first deep requests ran, another connection asks once.
    while (order.length < 16) await new Promise((resolve) => setImmediate(resolve));
    const other = await pipelined(port, 'GET /x HTTP/1.1\r\nHost: t\r\nX-Who: other\r\n\r\n', 1);
    expect(other).toContain('HTTP/1.1 200 OK');
    await Promise.all(flood);
    // Answered long before the 4,000 pipelined requests were worked through.
    expect(order.indexOf('other')).toBeLessThan(200);
    expect(order).toHaveLength(4_001);
  });

  it('takes requests that arrive a few bytes at a time, heads and bodies', async () => {
    const { handler } = echoing();
    const { port } = await listen(handler, true);
    const bytes = Buffer.from(`${post(1, '{"a":1}')}${get(2)}${chunked(3, ['xy', 'z'])}`);
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    for (let at = 0; at < bytes.length; at += 3) {
      socket.write(bytes.subarray(at, at + 3));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    while (answers(text).length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    socket.destroy();
    expect(answers(text)).toEqual(['/n/1 {"a":1}', '/n/2 ', '/n/3 xyz']);
  });

  it('hands an upgraded connection its bytes, and leaves request bodies to the handler', async () => {
    const { server, port } = await listen((req, res) => {
      // Answered without reading the body; the next request still comes.
      res.writeHead(401, { 'content-length': '0' }).end();
      req.resume();
    }, true);
    server.on('upgrade', (_req: IncomingMessage, socket: Socket, head: Buffer) => {
      let seen = head.toString('latin1');
      socket.on('data', (chunk: Buffer) => {
        seen += chunk.toString('latin1');
        if (seen.length >= 'after-the-head and more'.length) {
          socket.end(`HTTP/1.1 101 Switching Protocols\r\n\r\n${seen}`);
        }
      });
      socket.resume();
    });
    const text = await pipelined(
      port,
      `${post(1, '{"unread":true}')}${get(2)}GET /ws HTTP/1.1\r\nHost: t\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\nafter-the-head and more`,
      3,
    );
    expect(text.split('HTTP/1.1 401').length - 1).toBe(2);
    expect(text).toContain('HTTP/1.1 101 Switching Protocols\r\n\r\nafter-the-head and more');
  });
});
