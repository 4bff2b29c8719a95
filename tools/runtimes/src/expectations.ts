import { POUR_TOTAL, type PourOutcome } from '@petstore/conformance';
import { expect } from 'vitest';
import type { RuntimeExpectations } from './suite.js';

/** The 413 came as the Error body, or the runtime closed the connection before it reached the client. */
function answeredOrClosed(outcome: PourOutcome): void {
  expect([413, undefined]).toContain(outcome.status);
  if (outcome.status === 413) {
    expect(JSON.parse(outcome.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
  }
}

/** The same, before the client could send the whole body. */
function refusedOrClosed(outcome: PourOutcome): void {
  answeredOrClosed(outcome);
  expect(outcome.sentBeforeResponse).toBeLessThan(POUR_TOTAL);
}

/**
 * What each runtime does with a body too large for the store, below our code: the core has
 * answered 413 without reading it, and the fetch adapter read at most 512 KiB more away.
 */
export const RUNTIME_EXPECTATIONS: Readonly<
  Record<'bun' | 'deno' | 'workerd', RuntimeExpectations>
> = {
  bun: {
    oversizedBody: {
      reason:
        'Bun closes the connection as it answers a body it was not given whole: a client still writing gets the 413, or a reset before it',
      check: refusedOrClosed,
    },
  },
  deno: {
    oversizedBody: {
      reason:
        "Deno reads about 4 MB of the body before it sends the answer, then closes the connection: a client still writing gets the 413, or a reset before it; on a busy machine the rest of the 10 MiB fits in the sockets' buffers before the answer arrives",
      check: answeredOrClosed,
    },
  },
  workerd: {
    oversizedBody: {
      reason:
        'workerd closes the connection of a body announced longer than it was read: a client still writing gets the 413, or a reset before it',
      check: refusedOrClosed,
    },
  },
};
