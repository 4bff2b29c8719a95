import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { bodyChunks } from '../src/body-chunks.js';

const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString('utf8');

async function readAll(source: PassThrough): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bodyChunks(source)) chunks.push(chunk);
  return chunks;
}

describe('bodyChunks', () => {
  it('yields every chunk in order, then ends', async () => {
    const source = new PassThrough();
    const reading = readAll(source);
    source.write('{"name":');
    source.write('"Rex"}');
    source.end();
    expect(text(await reading)).toBe('{"name":"Rex"}');
  });

  it('yields chunks that arrived before the first pull', async () => {
    const source = new PassThrough();
    source.end('early');
    expect(text(await readAll(source))).toBe('early');
  });

  it('touches nothing until read, and pauses a stream nobody is pulling', async () => {
    const source = new PassThrough({ highWaterMark: 4 });
    source.write('ab');
    const body = bodyChunks(source);
    expect(source.readableFlowing).toBeNull();
    const iterator = body[Symbol.asyncIterator]();
    expect(text([(await iterator.next()).value as Uint8Array])).toBe('ab');
    // The caller stops pulling (a body past the core's limit): what comes next stays unread.
    source.write('cd');
    source.write('efgh');
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.readableFlowing).toBe(false);
    expect(source.readableLength).toBe(4);
  });

  it('a stream that closes before its end rejects the pull (the client went away)', async () => {
    const source = new PassThrough();
    const iterator = bodyChunks(source)[Symbol.asyncIterator]();
    const pending = iterator.next();
    source.destroy();
    await expect(pending).rejects.toThrow('closed before its body ended');
  });

  it('a stream that fails rejects the pull with its error', async () => {
    const source = new PassThrough();
    const iterator = bodyChunks(source)[Symbol.asyncIterator]();
    const pending = iterator.next();
    source.destroy(new Error('aborted'));
    await expect(pending).rejects.toThrow('aborted');
  });

  it('a stream already destroyed rejects at once; one already read to its end is done', async () => {
    const destroyed = new PassThrough();
    destroyed.destroy();
    await expect(bodyChunks(destroyed)[Symbol.asyncIterator]().next()).rejects.toThrow();

    const ended = new PassThrough();
    ended.end('x');
    ended.resume();
    await new Promise((resolve) => ended.once('end', resolve));
    expect(await bodyChunks(ended)[Symbol.asyncIterator]().next()).toEqual({
      done: true,
      value: undefined,
    });
  });

  it('the normal close after the end makes no error', async () => {
    const source = new PassThrough();
    const iterator = bodyChunks(source)[Symbol.asyncIterator]();
    source.end('done');
    expect((await iterator.next()).done).toBe(false);
    expect((await iterator.next()).done).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.destroyed).toBe(true);
    expect((await iterator.next()).done).toBe(true);
  });
});
