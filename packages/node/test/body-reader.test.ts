import { PassThrough } from 'node:stream';
import { createPetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { describe, expect, it } from 'vitest';
import { bodyReader } from '../src/body-reader.js';

describe('bodyReader', () => {
  it('reads every chunk, in order, as one text', async () => {
    const source = new PassThrough();
    const reading = bodyReader(source).read(100);
    source.write('{"name":');
    source.write(Buffer.from('"Rex 🐕"}'));
    source.end();
    expect(await reading).toBe('{"name":"Rex 🐕"}');
  });

  it('touches nothing until read, and takes what arrived before', async () => {
    const source = new PassThrough();
    source.end('early');
    const body = bodyReader(source);
    expect(source.readableFlowing).toBeNull();
    expect(await body.read(100)).toBe('early');
  });

  it('drops a leading byte order mark, as a UTF-8 decoder does; bytes that are not UTF-8 stay bytes', async () => {
    const bom = new PassThrough();
    const text = bodyReader(bom).read(100);
    bom.end(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]));
    expect(await text).toBe('{}');

    const latin1 = new PassThrough();
    const bytes = bodyReader(latin1).read(100);
    latin1.end(Buffer.from([0x22, 0xe9, 0x22]));
    expect(await bytes).toEqual(Buffer.from([0x22, 0xe9, 0x22]));
  });

  it('past the limit: too_large at once, the stream paused and the rest left unread', async () => {
    const source = new PassThrough({ highWaterMark: 4 });
    const reading = bodyReader(source).read(5);
    source.write('abc');
    source.write('def');
    expect(await reading).toBe('too_large');
    source.write('ghij');
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.readableFlowing).toBe(false);
    expect(source.readableLength).toBe(4);
    expect(source.listenerCount('data')).toBe(0);
  });

  it('a stream that closes before its end rejects (the client went away); one that fails, with its error', async () => {
    const closed = new PassThrough();
    const pending = bodyReader(closed).read(100);
    closed.write('{"na');
    closed.destroy();
    await expect(pending).rejects.toThrow('closed before its body ended');

    const failed = new PassThrough();
    const failing = bodyReader(failed).read(100);
    failed.destroy(new Error('aborted'));
    await expect(failing).rejects.toThrow('aborted');

    const destroyed = new PassThrough();
    destroyed.destroy();
    await expect(bodyReader(destroyed).read(100)).rejects.toThrow();
  });

  it('the normal close after the end changes nothing, and an ended stream reads as empty', async () => {
    const source = new PassThrough();
    const reading = bodyReader(source).read(100);
    source.end('x');
    expect(await reading).toBe('x');
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.destroyed).toBe(true);
    expect(await reading).toBe('x');
    const ended = new PassThrough();
    ended.end('y');
    ended.resume();
    await new Promise((resolve) => ended.once('end', resolve));
    expect(await bodyReader(ended).read(100)).toBe('');
  });

  it('the core answers from it as from any body: created, 413, 400 for bytes that are not UTF-8', async () => {
    const store = createPetStore({
      storage: createMemoryStorage(),
      apiKeys: ['k'.repeat(20)],
      maxBodyBytes: 64,
    });
    const send = async (bytes: Buffer) => {
      const source = new PassThrough();
      source.end(bytes);
      return store.handle({
        method: 'POST',
        path: '/pets',
        headers: { authorization: `Bearer ${'k'.repeat(20)}`, 'content-type': 'application/json' },
        body: bodyReader(source),
      });
    };
    const created = await send(Buffer.from('\ufeff{"name":"Rex","categoryId":1}'));
    expect(created.status).toBe(201);
    expect((await send(Buffer.alloc(65, 0x20))).status).toBe(413);
    const notText = await send(Buffer.from([0x7b, 0xff, 0x7d]));
    expect(notText.status).toBe(400);
    expect(notText.body).toContain('not valid UTF-8');
  });
});
