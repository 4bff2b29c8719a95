import { describe, expect, it } from 'vitest';
import { ClientAbortedError, readJsonBody } from '../src/input/body.js';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** An endless stream that counts what was pulled and whether it was told to stop. */
function endless(chunkSize: number) {
  const stats = { pulled: 0, returned: false };
  const stream: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        stats.pulled++;
        return { done: false, value: new Uint8Array(chunkSize).fill(0x20) };
      },
      return: async () => {
        stats.returned = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return { stream, stats };
}

describe('readJsonBody', () => {
  it('stops pulling an oversized stream right after the limit, without ending it', async () => {
    const { stream, stats } = endless(1000);
    const result = await readJsonBody(JSON_HEADERS, stream, 16 * 1024);
    expect(result).toMatchObject({ kind: 'error', code: 'payload_too_large' });
    expect(stats.pulled).toBe(17);
    expect(stats.returned).toBe(false);
  });

  it('refuses a declared Content-Length over the limit without reading at all', async () => {
    const { stream, stats } = endless(1000);
    const result = await readJsonBody(
      { ...JSON_HEADERS, 'content-length': '20000' },
      stream,
      16 * 1024,
    );
    expect(result).toMatchObject({ code: 'payload_too_large' });
    expect(stats.pulled).toBe(0);
  });

  it('checks the media type before reading the body', async () => {
    const { stream, stats } = endless(1000);
    const result = await readJsonBody({ 'content-type': 'text/plain' }, stream, 100);
    expect(result).toMatchObject({ code: 'unsupported_media_type' });
    expect(stats.pulled).toBe(0);
  });

  it('takes a body the host already parsed, measuring it by its Content-Length', async () => {
    expect(
      await readJsonBody(JSON_HEADERS, { kind: 'parsed', value: { a: 1 }, byteLength: 7 }, 100),
    ).toEqual({
      kind: 'json',
      value: { a: 1 },
      rounded: [],
    });
    expect(
      await readJsonBody(JSON_HEADERS, { kind: 'parsed', value: { a: 1 }, byteLength: 101 }, 100),
    ).toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('measures a parsed body without a known size by its serialisation', async () => {
    const value = { name: 'x'.repeat(200) };
    expect(await readJsonBody(JSON_HEADERS, { kind: 'parsed', value }, 100)).toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('maps a host parser rejection to the same errors the core would give', async () => {
    expect(
      await readJsonBody(JSON_HEADERS, { kind: 'unreadable', reason: 'too_large' }, 100),
    ).toMatchObject({
      code: 'payload_too_large',
    });
    expect(
      await readJsonBody(JSON_HEADERS, { kind: 'unreadable', reason: 'malformed' }, 100),
    ).toMatchObject({
      code: 'malformed_json',
    });
  });

  it('never mistakes client JSON that looks like an error for an error', async () => {
    const text = JSON.stringify({ kind: 'error', code: 'x' });
    expect(await readJsonBody(JSON_HEADERS, text, 100)).toEqual({
      kind: 'json',
      value: { kind: 'error', code: 'x' },
      rounded: [],
    });
  });

  it('reports a stream that fails mid-body as the client going away, not as a bug', async () => {
    const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    async function* halfThenGone() {
      yield new TextEncoder().encode('{"name":');
      throw reset;
    }
    const read = readJsonBody(JSON_HEADERS, halfThenGone(), 100);
    await expect(read).rejects.toBeInstanceOf(ClientAbortedError);
    await expect(read).rejects.toMatchObject({ cause: reset });
    await expect(
      readJsonBody(JSON_HEADERS, { kind: 'unreadable', reason: 'aborted' }, 100),
    ).rejects.toBeInstanceOf(ClientAbortedError);
  });
});
