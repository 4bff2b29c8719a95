import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { openLoop } from '../src/open-loop.js';

/**
 * The open-loop generator against tiny node:http servers in this process. Every
 * assertion is a count or a lower bound: a busy 2-core machine makes the generator
 * and the server slower, never faster, so none of these can flake that way.
 */

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function serve(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => handler(req, res, body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/pets?limit=20`;
}

test('sends no faster than the rate and counts answers by class', async () => {
  const received: number[] = [];
  const url = await serve((_req, res) => {
    received.push(performance.now());
    const n = received.length;
    const status = n % 4 === 3 ? 503 : n % 8 === 5 ? 404 : 200;
    res.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  const rate = 400;
  const before = performance.now();
  const result = await openLoop({ url, method: 'GET', rate, seconds: 1 });

  expect(result.scheduled).toBe(400);
  expect(result.offeredRps).toBe(rate);
  expect(result.dropped).toBe(0);
  expect(result.sent + result.unsent).toBe(result.scheduled);
  expect(result.sent).toBe(received.length);
  // Every request sent has its outcome, by class.
  const { status } = result;
  expect(status['2xx'] + status['503'] + status.other + result.timedOut + result.errors).toBe(
    result.sent,
  );
  expect(status['503']).toBeGreaterThan(0);
  expect(status.other).toBeGreaterThan(0);
  expect(result.latency503.count).toBe(status['503']);
  expect(result.latency2xx.count).toBe(status['2xx']);
  expect(result.latencyAnswered.count).toBe(status['2xx'] + status['503']);
  expect(result.goodputRps).toBe(status['2xx']);
  expect(result.latency2xx.p99Ms).toBeGreaterThanOrEqual(result.latency2xx.p50Ms);
  // The k-th request cannot reach the server before arrival k is due: start + k / rate.
  received.sort((a, b) => a - b);
  for (const [k, at] of received.entries()) {
    expect(at).toBeGreaterThanOrEqual(before + (k * 1000) / rate - 1e-6);
  }
  // Keep-alive: far fewer connections than requests at this pace.
  expect(result.connectionsOpened).toBeLessThan(result.sent);
});

test('latency runs from the scheduled time: a server that blocks 200 ms shows it', async () => {
  let count = 0;
  const url = await serve((_req, res) => {
    if (++count === 50) {
      // Blocks this process (server and generator alike): arrivals due meanwhile go out late.
      const until = performance.now() + 200;
      while (performance.now() < until) {
        // busy
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  const result = await openLoop({ url, method: 'GET', rate: 200, seconds: 1 });

  expect(result.scheduled).toBe(200);
  expect(result.dropped + result.unsent + result.timedOut + result.errors).toBe(0);
  expect(result.status['2xx']).toBe(200);
  // The blocking request waited the whole 200 ms; those due in the next 10 ms at least 190 ms
  // from when they were due, though they were written after the block (measured from the
  // write, they would read a millisecond or so). They are the top 3 of 200: p99 and above.
  expect(result.latency2xx.maxMs).toBeGreaterThanOrEqual(200);
  expect(result.latency2xx.p99Ms).toBeGreaterThanOrEqual(185);
  expect(result.sendLag.maxMs).toBeGreaterThanOrEqual(150);
});

test('an arrival finding every connection busy is dropped, not queued; the busy ones time out', async () => {
  const url = await serve(() => {
    // Never answers.
  });
  const result = await openLoop({
    url,
    method: 'GET',
    rate: 100,
    seconds: 0.3,
    maxConnections: 5,
    deadlineMs: 1500,
  });

  expect(result.scheduled).toBe(30);
  expect(result.sent).toBe(5);
  expect(result.dropped).toBe(25);
  expect(result.timedOut).toBe(5);
  expect(result.maxOpenConnections).toBe(5);
  expect(result.status['2xx'] + result.status['503'] + result.status.other).toBe(0);
  expect(result.goodputRps).toBe(0);
});

test('a request not answered by its deadline is timed out and its connection destroyed', async () => {
  let closed = 0;
  const url = await serve((req, res) => {
    req.socket.once('close', () => {
      closed++;
    });
    setTimeout(() => {
      if (!res.destroyed) res.writeHead(200).end('late');
    }, 400);
  });
  const result = await openLoop({ url, method: 'GET', rate: 50, seconds: 0.2, deadlineMs: 100 });

  expect(result.scheduled).toBe(10);
  expect(result.sent).toBe(10);
  expect(result.timedOut).toBe(10);
  expect(result.status['2xx']).toBe(0);
  // Never reused: each timed-out request had a connection of its own, closed by the client.
  expect(result.connectionsOpened).toBe(10);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(closed).toBe(10);
});

test('POST with a body, a fresh Idempotency-Key each, and chunked answers', async () => {
  const keys = new Set<string>();
  const bodies: string[] = [];
  const url = await serve((req, res, body) => {
    keys.add(String(req.headers['idempotency-key']));
    bodies.push(body);
    // No Content-Length: node:http frames this chunked.
    res.writeHead(201, { 'content-type': 'application/json' });
    res.write('{"id":1,');
    res.write('"name":"Rex"}');
    res.end();
  });
  const body = JSON.stringify({ name: 'Rex', categoryId: 7, status: 'pending' });
  const result = await openLoop({
    url,
    method: 'POST',
    headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
    body,
    idempotencyKeys: true,
    rate: 100,
    seconds: 0.5,
    preconnect: 3,
  });

  expect(result.scheduled).toBe(50);
  expect(result.errors).toBe(0);
  expect(result.status['2xx']).toBe(result.sent);
  expect(result.sent).toBeGreaterThan(0);
  expect(keys.size).toBe(result.sent);
  expect(bodies.every((received) => received === body)).toBe(true);
  // Opened before the clock started.
  expect(result.connectionsOpened).toBeGreaterThanOrEqual(3);
});

test('a warm-up on the same connections, answered before the measured schedule starts', async () => {
  let answered = 0;
  let connections = 0;
  const url = await serve((_req, res) => {
    answered++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  servers[0]?.on('connection', () => {
    connections++;
  });
  let answeredBeforeMeasure = -1;
  const result = await openLoop({
    url,
    method: 'GET',
    rate: 100,
    seconds: 0.3,
    preconnect: 2,
    warmup: { rate: 100, seconds: 0.3 },
    beforeMeasure: () => {
      answeredBeforeMeasure = answered;
    },
  });

  expect(result.warmup).toEqual({ scheduled: 30, '2xx': 30, '503': 0, unanswered: 0 });
  expect(answeredBeforeMeasure).toBe(30);
  expect(result.scheduled).toBe(30);
  expect(result.status['2xx']).toBe(30);
  expect(answered).toBe(60);
  // The measured run counts only the connections it opened itself.
  expect(connections).toBeGreaterThanOrEqual(2);
  expect(result.connectionsOpened).toBeLessThan(connections);
});

test('connections from the loopback addresses given, in turn', async () => {
  const from = new Map<string, number>();
  const url = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  servers[0]?.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    from.set(address, (from.get(address) ?? 0) + 1);
  });
  const result = await openLoop({
    url,
    method: 'GET',
    rate: 100,
    seconds: 0.2,
    preconnect: 6,
    localAddresses: ['127.0.1.1', '127.0.1.2', '127.0.1.3'],
  });
  expect(result.status['2xx']).toBe(20);
  // Six connections opened before the clock, two from each address.
  expect(Object.fromEntries(from)).toEqual({ '127.0.1.1': 2, '127.0.1.2': 2, '127.0.1.3': 2 });
});

test("refusals: the API's 503 (JSON, Retry-After) apart from any other 503, and a body that ends with the connection", async () => {
  let n = 0;
  const url = await serve((_req, res) => {
    n++;
    if (n % 3 === 0) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end('{"code":"service_unavailable"}');
    } else if (n % 3 === 1) {
      res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>busy</h1>');
    } else {
      // As HAProxy writes its error file: no length, the connection's end ends the body.
      res.socket?.end(
        'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\n\r\n{"code":"service_unavailable"}\n',
      );
    }
  });
  const result = await openLoop({ url, method: 'GET', rate: 90, seconds: 0.2 });
  expect(result.errors).toBe(0);
  expect(result.status['503']).toBe(18);
  expect(result.badRefusals).toBe(6);
  // The generator's own event loop, measured over the run.
  expect(result.generatorLoopDelay.maxMs).toBeGreaterThan(0);
  expect(result.generatorLoopDelay.maxMs).toBeGreaterThanOrEqual(result.generatorLoopDelay.p99Ms);
});

test('refuses anything but 127.0.0.1 over http', async () => {
  const spec = { method: 'GET', rate: 10, seconds: 0.1 } as const;
  await expect(openLoop({ ...spec, url: 'http://10.1.2.3:8080/v1/pets' })).rejects.toThrow(
    /refusing/,
  );
  await expect(openLoop({ ...spec, url: 'http://localhost:8080/v1/pets' })).rejects.toThrow(
    /refusing/,
  );
  await expect(openLoop({ ...spec, url: 'https://127.0.0.1:8443/v1/pets' })).rejects.toThrow(
    /http only/,
  );
  await expect(openLoop({ ...spec, url: 'http://127.0.0.1:1/', rate: 0 })).rejects.toThrow(/rate/);
});
