import { connect } from 'node:net';
import { createPetStore, type ResponseEvent } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { petStorePlugin } from '../src/index.js';
import { listen } from './helpers.js';

it('a client that hangs up mid-body gets no answer, and Fastify carries on with nothing', async () => {
  const responses: ResponseEvent[] = [];
  const host: string[] = [];
  const store = createPetStore({
    storage: createMemoryStorage(),
    apiKeys: ['test-key-0123456789'],
    hooks: { onResponse: (event) => responses.push(event) },
  });
  const app = Fastify();
  let arrived = () => {};
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  app.addHook('onRequest', async () => arrived());
  for (const hook of ['preParsing', 'preHandler', 'onSend', 'onError'] as const) {
    app.addHook(hook, async () => {
      host.push(hook);
    });
  }
  app.setErrorHandler((error, _request, reply) => {
    host.push(`error handler: ${String(error)}`);
    return reply.send(error);
  });
  await app.register(petStorePlugin, { store, prefix: '/v1' });
  const api = await listen(app);
  try {
    const socket = connect(Number(new URL(api.origin).port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key-0123456789\r\n' +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
    );
    await reached;
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const deadline = Date.now() + 10_000;
    while (responses.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(responses).toMatchObject([{ status: 499, aborted: true }]);
    expect(host).toEqual([]);
  } finally {
    await api.close();
  }
});
