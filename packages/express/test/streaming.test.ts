import type { Socket } from 'node:net';
import { pour, POUR_TOTAL as TOTAL } from '@petstore/core/testing';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { petStoreRouter } from '../src/index.js';
import { JSON_AUTH, listen, memoryStore, type Running } from './helpers.js';

const MIB = 1024 * 1024;

describe('an oversized body', () => {
  let api: Running | undefined;
  afterEach(async () => {
    await api?.close();
  });

  const serveAndWatch = async () => {
    api = await listen(express().use('/v1', petStoreRouter(memoryStore())));
    const sockets: Socket[] = [];
    api.server.on('connection', (socket: Socket) => sockets.push(socket));
    return sockets;
  };

  it('sent chunked without Content-Length gets 413 long before it ends, and the server reads little of it', async () => {
    const sockets = await serveAndWatch();
    const outcome = await pour(api?.origin ?? '', JSON_AUTH);
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
    // The rest of the body is not a next request: the connection ends with the answer.
    expect(outcome.connection).toBe('close');
    expect(outcome.sentBeforeResponse).toBeLessThan(TOTAL);
    expect(sockets).toHaveLength(1);
    expect(sockets[0]?.bytesRead).toBeLessThan(MIB);
  });

  it('announced by Content-Length gets 413 before it is sent', async () => {
    const sockets = await serveAndWatch();
    const outcome = await pour(api?.origin ?? '', {
      ...JSON_AUTH,
      'content-length': String(TOTAL),
    });
    expect(outcome.status).toBe(413);
    expect(outcome.connection).toBe('close');
    expect(outcome.sentBeforeResponse).toBeLessThan(TOTAL);
    expect(sockets[0]?.bytesRead).toBeLessThan(MIB);
  });
});
