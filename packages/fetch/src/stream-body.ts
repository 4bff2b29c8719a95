/** What became of the request body: read to its end (the connection can serve another request) or not. */
export interface BodyState {
  ended: boolean;
  /** The reader, once somebody started reading. */
  reader?: ReadableStreamDefaultReader<Uint8Array>;
}

const readerOf = (stream: ReadableStream<Uint8Array>, state: BodyState) => {
  state.reader ??= stream.getReader();
  return state.reader;
};

/**
 * The request's `ReadableStream` as the async iterable the core reads, opened at the first
 * read: some hosts start reading the request (and a Node host sends `100 Continue`) as soon as
 * the stream is asked for, and the core asks only once the request is authenticated. The core
 * pulls one chunk at a time and stops pulling once past its limit, so nothing
 * past it is buffered. A stream that fails (the client went away) makes `next()`
 * reject, which the core takes as a client abort.
 */
export function streamBody(
  open: () => ReadableStream<Uint8Array> | null,
  state: BodyState,
): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<Uint8Array>> {
        const stream = open();
        if (stream === null) {
          state.ended = true;
          return { done: true, value: undefined };
        }
        const chunk = await readerOf(stream, state).read();
        if (chunk.done) {
          state.ended = true;
          return { done: true, value: undefined };
        }
        return { done: false, value: chunk.value };
      },
    }),
  };
}

/** How much of a refused body is read and thrown away before answering, at most. */
export const DRAIN_LIMIT = { bytes: 512 * 1024, ms: 1000 } as const;

/**
 * Reads the rest of a body the core refused before its end (a 413, a 401...) and
 * throws it away, up to `DRAIN_LIMIT`: a runtime that answers while the client
 * still writes closes the connection under it, and the client then never sees
 * the answer. Past the limit the stream is cancelled and the runtime decides
 * what becomes of the connection. Nothing is kept in memory.
 */
export async function drainBody(
  stream: ReadableStream<Uint8Array>,
  state: BodyState,
): Promise<void> {
  const reader = readerOf(stream, state);
  const deadline = Date.now() + DRAIN_LIMIT.ms;
  let read = 0;
  try {
    while (read <= DRAIN_LIMIT.bytes) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), left);
      });
      const chunk = await Promise.race([reader.read(), late]);
      clearTimeout(timer);
      if (chunk === 'late') break;
      if (chunk.done) {
        state.ended = true;
        return;
      }
      read += chunk.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing left to drain.
  }
}
