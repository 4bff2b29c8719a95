import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';
import type { HostReadBody } from '@petstore/core';

/** What the body is read from: any Node readable (a request, hapi's payload stream). */
type Source = Pick<Readable, 'on' | 'off' | 'pause' | 'destroyed' | 'readableEnded'>;

const EMPTY = Buffer.alloc(0);
const gone = () => new Error('the request closed before its body ended');

/**
 * Text when the bytes are UTF-8 (Node's own check and decoder, both native), without a leading
 * byte order mark, as a UTF-8 decoder drops it; else the bytes, which the core refuses.
 */
function decoded(bytes: Buffer): string | Buffer {
  if (!isUtf8(bytes)) return bytes;
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return bytes.toString('utf8', bom ? 3 : 0);
}

/** The whole body from `data` events, or `too_large` once past `maxBytes` (see bodyReader). */
function readWhole(source: Source, maxBytes: number): Promise<string | Buffer | 'too_large'> {
  if (source.readableEnded) return Promise.resolve('');
  if (source.destroyed) return Promise.reject(gone());
  return new Promise((resolve, reject) => {
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    // Settled once; the listeners stay on a stream that has ended (they go with it), and only a
    // body past the limit has its `data` listener taken off.
    let settled = false;
    const onData = (data: Buffer | string): void => {
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      size += chunk.byteLength;
      if (size > maxBytes) {
        // No more is read: the rest stays on the socket, and the answer closes the connection.
        source.off('data', onData);
        source.pause();
        settled = true;
        resolve('too_large');
        return;
      }
      if (first === undefined) first = chunk;
      else if (more === undefined) more = [first, chunk];
      else more.push(chunk);
    };
    source.on('data', onData);
    source.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(decoded(more === undefined ? (first ?? EMPTY) : Buffer.concat(more, size)));
    });
    source.on('error', (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    });
    // After `end`, `close` is the stream's normal finish; before it, the client went away.
    source.on('close', () => {
      if (settled) return;
      settled = true;
      reject(gone());
    });
  });
}

/**
 * A body the core reads whole when it asks for it (after authentication), from the stream's
 * `data` events: one promise for the whole body, where an async iterator costs a promise and a
 * result object per chunk. Past the core's limit it stops reading (the stream is paused, the
 * rest never buffered), as the core's own reader does. The text is decoded here, by Node.
 */
export const bodyReader = (source: Source): HostReadBody => ({
  kind: 'read',
  read: (maxBytes) => readWhole(source, maxBytes),
});
