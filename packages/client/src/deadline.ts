/**
 * The time bound of one attempt and the caller's cancel, as one signal for `fetch`.
 * Only `AbortController`, `setTimeout` and `DOMException`: browsers and Node 20 alike.
 */
export interface Deadline {
  /** Aborted when the caller's signal aborts (with its reason) or when the time runs out. */
  readonly signal: AbortSignal;
  /** Whether the time ran out (and the caller had not aborted first). */
  timedOut(): boolean;
  /** Clears the timer and stops listening to the caller's signal. Call it in `finally`. */
  end(): void;
}

export function startDeadline(timeoutMs: number, caller: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  const expired = new DOMException(`No complete answer within ${timeoutMs} ms`, 'TimeoutError');
  const timer = setTimeout(() => controller.abort(expired), timeoutMs);
  const cancel = () => controller.abort(caller?.reason);
  if (caller?.aborted) cancel();
  else caller?.addEventListener('abort', cancel, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => controller.signal.reason === expired,
    end() {
      clearTimeout(timer);
      caller?.removeEventListener('abort', cancel);
    },
  };
}

/**
 * `work`, or a rejection with the signal's reason as soon as it aborts: a `fetch` option that
 * ignores its signal (an old polyfill, a wrapper that drops it) cannot hold the call.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // Settles the outer promise first if it wins; a late rejection of `work` is handled here.
    work.then(resolve, reject);
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    work.finally(() => signal.removeEventListener('abort', stop)).catch(() => {});
  });
}
