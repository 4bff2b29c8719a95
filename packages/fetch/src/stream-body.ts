/** Whether the body stream was read to its end (then the connection can serve another request). */
export interface BodyState {
  ended: boolean;
}

/**
 * The request's `ReadableStream` as the async iterable the core reads. The core
 * pulls one chunk at a time and stops pulling once past its limit, so nothing
 * past it is buffered. A stream that fails (the client went away) makes `next()`
 * reject, which the core takes as a client abort.
 */
export function streamBody(
  stream: ReadableStream<Uint8Array>,
  state: BodyState,
): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]: () => {
      const reader = stream.getReader();
      return {
        async next(): Promise<IteratorResult<Uint8Array>> {
          const chunk = await reader.read();
          if (chunk.done) {
            state.ended = true;
            return { done: true, value: undefined };
          }
          return { done: false, value: chunk.value };
        },
      };
    },
  };
}
