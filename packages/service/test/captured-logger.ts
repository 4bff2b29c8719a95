import { Writable } from 'node:stream';
import type { LogLevel } from '../src/config.js';
import { createLogger, type Logger } from '../src/logging.js';

/** A real pino logger writing into an array of parsed lines. */
export function capturedLogger(level: LogLevel = 'debug'): {
  readonly logger: Logger;
  readonly lines: Array<Record<string, unknown>>;
} {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}
