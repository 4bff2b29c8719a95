import type { RetryReason } from './retry.js';

/**
 * The retry token bucket of one client (the AWS SDKs' standard retry mode): a retry takes
 * tokens, a success gives one back, and with too few tokens left a failure is not retried.
 */
export interface RetryTokensOptions {
  /** Tokens the bucket holds, and starts with. Default 1000 (`DEFAULT_RETRY_TOKENS.capacity`). */
  readonly capacity?: number;
  /** Tokens a retry takes. Default 10. */
  readonly retryCost?: number;
  /**
   * Tokens a retry after a timed-out attempt takes: that attempt may still be at work in the
   * service while the retry adds to it. Default 20.
   */
  readonly timeoutRetryCost?: number;
  /** Tokens each successful (2xx) answer gives back, up to `capacity`. Default 1. */
  readonly successRefund?: number;
}

/**
 * A retry costs ten successes, so that whatever share of calls fails, retries add at most a
 * tenth to what a client sends once the first `capacity / retryCost` (100: a failover's worth
 * for a client with a few calls in flight) are spent, and none while every call fails.
 */
export const DEFAULT_RETRY_TOKENS: Required<RetryTokensOptions> = Object.freeze({
  capacity: 1000,
  retryCost: 10,
  timeoutRetryCost: 20,
  successRefund: 1,
});

export interface RetryTokens {
  /** Takes a retry's cost and returns it, or undefined (nothing taken) when too few are left. */
  take(reason: RetryReason): number | undefined;
  /** Gives back what `take` took for a retry that never went out (the call was cancelled). */
  giveBack(cost: number): void;
  /** A successful answer: one refund. */
  succeeded(): void;
  /** Tokens left (for tests and messages). */
  readonly left: number;
}

const whole = (name: string, value: number, min: number): number => {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new TypeError(
      `retryTokens.${name} must be a whole number of at least ${min}, got ${value}`,
    );
  }
  return value;
};

/** The bucket for `options`; `false` gives one that never runs out (no throttling). */
export function createRetryTokens(options: RetryTokensOptions | false | undefined): RetryTokens {
  if (options === false) {
    return { take: () => 0, giveBack: () => {}, succeeded: () => {}, left: Infinity };
  }
  const settings = { ...DEFAULT_RETRY_TOKENS, ...options };
  const capacity = whole('capacity', settings.capacity, 1);
  const retryCost = whole('retryCost', settings.retryCost, 1);
  const timeoutRetryCost = whole('timeoutRetryCost', settings.timeoutRetryCost, 1);
  const successRefund = whole('successRefund', settings.successRefund, 0);
  let left = capacity;
  return {
    take(reason) {
      const cost = reason === 'timeout' ? timeoutRetryCost : retryCost;
      if (cost > left) return undefined;
      left -= cost;
      return cost;
    },
    giveBack(cost) {
      left = Math.min(capacity, left + cost);
    },
    succeeded() {
      left = Math.min(capacity, left + successRefund);
    },
    get left() {
      return left;
    },
  };
}
