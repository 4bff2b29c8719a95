import type { Socket } from 'node:net';
import { pour, POUR_TOTAL as TOTAL } from '@petstore/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { JSON_AUTH, memoryStore, type Running, serveHapi } from './helpers.js';

const MIB = 1024 * 1024;

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
