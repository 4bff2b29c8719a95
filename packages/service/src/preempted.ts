import type { LoggingHooks } from './logging.js';

/**
 * API requests the HTTP layer ended while the core still worked on them: answered 408 for a
 * body too slow, or dropped by the client mid-body. The core then reads a broken body stream
 * and reports an error and a 500 that no client ever saw; those reports are dropped, so each
 * request keeps one log line (the 408's, or a debug `request aborted`).
 */
export interface PreemptedRequests {
  mark(requestId: string): void;
  /** `hooks` without the core's reports on marked requests. */
  filter(hooks: LoggingHooks): LoggingHooks;
}

/** Marks whose core report never came (it came first) are few; this bounds them anyway. */
const MAX_MARKED = 10_000;

export function preemptedRequests(): PreemptedRequests {
  const marked = new Set<string>();
  return {
    mark(requestId) {
      if (marked.size >= MAX_MARKED) marked.clear();
      marked.add(requestId);
    },
    filter: (hooks) => ({
      onResponse(event) {
        if (marked.delete(event.requestId)) return;
        hooks.onResponse(event);
      },
      onError(event) {
        if (marked.has(event.requestId)) return;
        hooks.onError(event);
      },
      onDeprecatedCall: (event) => hooks.onDeprecatedCall(event),
    }),
  };
}
