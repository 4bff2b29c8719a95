import type { Readable } from 'node:stream';

/** What the core reads a body from: any Node readable (a request, hapi's payload stream). */
type Source = Pick<Readable, 'on' | 'pause' | 'resume' | 'destroyed' | 'readableEnded'>;

const ended: IteratorResult<Uint8Array> = { done: true, value: undefined };
const gone = () => new Error('the request closed before its body ended');

/**
 * Chunks of a Node readable, as the core pulls them, from its `data` events.
 * A Readable's own async iterator (a generator over `readable` events, with an
 * end-of-stream watcher) costs several microseconds a request; this costs two
 * settled promises for a body of one chunk. The stream is left alone until
 * the core starts reading it, and a chunk nobody has asked for pauses it: a
 * body the core stops pulling (past its limit) stays unread, as with the
 * built-in iterator.
 */
class Chunks implements AsyncIterator<Uint8Array> {
  readonly #source: Source;
  readonly #waiting: Uint8Array[] = [];
  #done = false;
  #failure: Error | undefined;
  #pending:
    | { resolve(result: IteratorResult<Uint8Array>): void; reject(error: Error): void }
    | undefined;

  constructor(source: Source) {
    this.#source = source;
    if (source.readableEnded) this.#done = true;
    else if (source.destroyed) this.#failure = gone();
    else {
      source.on('data', (chunk: Uint8Array | string) => this.#chunk(chunk));
      source.on('end', () => this.#end());
      source.on('error', (error: Error) => this.#fail(error));
      // After `end`, `close` is the stream's normal finish: no error to make (a stack costs).
      source.on('close', () => {
        if (!this.#done) this.#fail(gone());
      });
    }
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    const chunk = this.#waiting.shift();
    if (chunk !== undefined) return Promise.resolve({ done: false, value: chunk });
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#done) return Promise.resolve(ended);
    this.#source.resume();
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
    });
  }

  #chunk(data: Uint8Array | string): void {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    const pending = this.#pending;
    if (pending === undefined) {
      this.#waiting.push(chunk);
      this.#source.pause();
      return;
    }
    this.#pending = undefined;
    pending.resolve({ done: false, value: chunk });
  }

  #end(): void {
    this.#done = true;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.resolve(ended);
  }

  #fail(error: Error): void {
    if (this.#done || this.#failure !== undefined) return;
    this.#failure = error;
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(error);
  }
}

/** A body the core reads with its limit: see `Chunks`. */
export const bodyChunks = (source: Source): AsyncIterable<Uint8Array> => ({
  [Symbol.asyncIterator]: () => new Chunks(source),
});
