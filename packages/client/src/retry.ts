/** Why an attempt is retried. */
export type RetryReason =
  | 'service_unavailable'
  | 'idempotency_key_in_use'
  | 'network_error'
  /** No complete answer within `timeoutMs`. */
  | 'timeout';

/** Reported before each wait, so a caller can log or count retries. */
export interface RetryEvent {
  /** `createPet`, `listPets`... */
  readonly operation: string;
  /** 1 for the first retry. */
  readonly retry: number;
  readonly reason: RetryReason;
  /** The status of the failed attempt; 0 for a network error or a timeout. */
  readonly status: number;
  /** How long the client waits before the retry. */
  readonly waitMs: number;
  /** True when the wait comes from the answer's `Retry-After`, false for backoff. */
  readonly fromRetryAfter: boolean;
  /** The key every attempt of a create carries. */
  readonly idempotencyKey?: string | undefined;
  /** The failed attempt's `X-Request-Id`, when it got an answer. */
  readonly requestId?: string | undefined;
}

/** First backoff step; each later one doubles, up to `MAX_BACKOFF_MS`. */
export const BASE_BACKOFF_MS = 200;
export const MAX_BACKOFF_MS = 10_000;
/** A `Retry-After` longer than this is cut to it: a client call should not hang for minutes. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Milliseconds from a `Retry-After` value (delay-seconds or an HTTP date), or undefined. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // An HTTP date names its day or month; Date.parse would also take "-1" as a year.
  const at = /[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

/**
 * Exponential backoff with "equal jitter": half of the step is fixed, half random, so
 * clients that failed together do not retry together, and none retries at once.
 */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const step = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (retry - 1));
  return step / 2 + random() * (step / 2);
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts (or at once if it has). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
