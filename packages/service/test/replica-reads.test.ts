import { describe, expect, it } from 'vitest';
import { watchReplicaReads } from '../src/replica-reads.js';
import { capturedLogger } from './captured-logger.js';

describe('watchReplicaReads', () => {
  it('counts reads by where they went, warns of a failing replica once a minute, and says when it answers again', () => {
    const { logger, lines } = capturedLogger();
    let now = 0;
    const reads = watchReplicaReads(logger, () => now);
    const refused = new Error('password authentication failed for user "petstore"');
    reads.onRead('failed', refused);
    reads.onRead('resting');
    now = 30_000;
    reads.onRead('failed', refused);
    now = 61_000;
    reads.onRead('failed', refused);
    reads.onRead('behind');
    reads.onRead('replica');
    reads.onRead('replica');
    expect(lines.map((line) => [line.level, line.msg, line.reason, line.failedReads])).toEqual([
      [
        40,
        'read replica (DATABASE_READ_URL) cannot be used: reads go to the primary',
        refused.message,
        1,
      ],
      [
        40,
        'read replica (DATABASE_READ_URL) cannot be used: reads go to the primary',
        refused.message,
        2,
      ],
      [30, 'read replica (DATABASE_READ_URL) answers again', undefined, undefined],
    ]);
    expect(reads.counts()).toEqual([
      { target: 'primary_after_wait', outcome: 'failed', count: 3 },
      { target: 'primary_at_once', outcome: 'resting', count: 1 },
      { target: 'primary_after_wait', outcome: 'behind', count: 1 },
      { target: 'replica', outcome: 'replica', count: 2 },
    ]);
  });
});
