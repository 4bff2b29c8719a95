import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JSON_AUTH, memoryStore, type Running, serveHapi } from './helpers.js';

const MIB = 1024 * 1024;
const TOTAL = 10 * MIB;

interface Outcome {
  readonly status: number | undefined;
  readonly connection: string | undefined;
  readonly body: string;
  /** Bytes the client had handed to the socket when the response arrived. */
  readonly sentBeforeResponse: number;
  readonly elapsedMs: number;
}

/** Streams up to 10 MiB of body in 64 KiB chunks, stopping as soon as a response arrives (10 s at most). */
function pour(origin: string, headers: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const started = Date.now();
    let sent = 0;
    let outcome: Omit<Outcome, 'body'> | undefined;
    let body = '';
    // The client asks to keep the connection: only the server can decide to end it.
    const req = httpRequest(`${origin}/v1/pets`, {
      method: 'POST',
      headers: { ...headers, connection: 'keep-alive' },
      agent: false,
    });
    req.on('response', (res) => {
      outcome = {
        status: res.statusCode,
        connection: res.headers.connection,
        sentBeforeResponse: sent,
        elapsedMs: Date.now() - started,
      };
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        body += text;
      });
      res.on('end', () => req.destroy());
    });
    // The server closes while we still write: EPIPE or ECONNRESET here is the point.
    req.on('error', () => {});
    req.on('close', () =>
      resolve({
        status: undefined,
        connection: undefined,
        sentBeforeResponse: sent,
        elapsedMs: Date.now() - started,
        ...outcome,
        body,
      }),
    );
    void (async () => {
      while (
        sent < TOTAL &&
        outcome === undefined &&
        !req.destroyed &&
        Date.now() - started < 10_000
      ) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          await new Promise<void>((next) => {
            const done = () => {
              for (const event of ['drain', 'close', 'response']) req.off(event, done);
              next();
            };
            for (const event of ['drain', 'close', 'response']) req.once(event, done);
          });
        }
      }
      if (!req.destroyed && outcome === undefined) req.end();
    })();
  });
}

describe('an oversized body', () => {
  let api: Running | undefined;
  afterEach(async () => {
    await api?.close();
  });

  const serveAndWatch = async () => {
    api = await serveHapi(memoryStore());
    const sockets: Socket[] = [];
    api.server.listener.on('connection', (socket: Socket) => sockets.push(socket));
    return { origin: api.origin, sockets };
  };

  it("sent chunked without Content-Length gets the core's 413 long before it ends, and the server reads little of it", async () => {
    const { origin, sockets } = await serveAndWatch();
    const outcome = await pour(origin, JSON_AUTH);
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
    // The rest of the body is not a next request: the connection ends with the answer.
    expect(outcome.connection).toBe('close');
    expect(outcome.sentBeforeResponse).toBeLessThan(TOTAL);
    expect(outcome.elapsedMs).toBeLessThan(2_000);
    expect(sockets).toHaveLength(1);
    expect(sockets[0]?.bytesRead).toBeLessThan(MIB);
  });

  it("announced by Content-Length gets the core's 413 before it is sent", async () => {
    const { origin, sockets } = await serveAndWatch();
    const outcome = await pour(origin, { ...JSON_AUTH, 'content-length': String(TOTAL) });
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
    expect(outcome.connection).toBe('close');
    expect(outcome.sentBeforeResponse).toBeLessThan(TOTAL);
    expect(sockets[0]?.bytesRead).toBeLessThan(MIB);
  });
});
