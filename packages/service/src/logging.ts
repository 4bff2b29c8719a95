import type { DeprecatedCallEvent, ErrorEvent, ResponseEvent } from '@petstore/core';
import { type DestinationStream, destination as fileDestination, type Logger, pino } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

/** The fields of one request line, for API answers and host routes alike. */
export interface RequestLine {
  readonly method: string;
  /** Route template (`/pets/{petId}`, `/healthz`); absent when no route matched. */
  readonly route: string | undefined;
  readonly operationId?: string | undefined;
  readonly status: number;
  readonly durationMs: number;
  readonly requestId: string;
  /** Why a host route failed (a readiness probe's outage), when it did. */
  readonly reason?: string | undefined;
  /**
   * Why an API answer was a 503: the storage's SQLSTATE or errno, `timeout`, `verify`..., or
   * `shed_event_loop_delay` / `shed_heap_used` / `shed_in_flight` when load shedding answered it.
   */
  readonly cause?: string | undefined;
}

/**
 * JSON lines on stdout (or `destination`), written synchronously. Nothing here is handed a header or a key; the
 * redaction is a second lock in case someone later logs a request object whole.
 */
export function createLogger(
  level: LogLevel,
  destination?: DestinationStream,
  /** Fields for every line (the active trace's ids, with tracing on). */
  mixin?: () => Record<string, string>,
): Logger {
  const options = {
    level,
    ...(mixin === undefined ? {} : { mixin }),
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['authorization', '*.authorization', '*.headers.authorization', 'apiKey', 'apiKeys'],
      censor: '[redacted]',
    },
  };
  // Synchronous writes: pino's default stdout stream is asynchronous, and a line still in flight
  // when shutdown calls process.exit() came out after later lines or not at all.
  return pino(options, destination ?? fileDestination({ dest: 1, sync: true }));
}

/** One line per answered request: 5xx at warn (the cause, if any, comes from onError). */
export function logRequest(logger: Logger, line: RequestLine): void {
  const entry = { ...line, durationMs: Math.round(line.durationMs * 10) / 10 };
  if (line.status >= 500) logger.warn(entry, 'request');
  else logger.info(entry, 'request');
}

/** The hooks `createPetStore({ hooks })` takes, all three present. */
export interface LoggingHooks {
  onResponse(event: ResponseEvent): void;
  onDeprecatedCall(event: DeprecatedCallEvent): void;
  onError(event: ErrorEvent): void;
}

/** The core prints nothing: these hooks are where its requests, deprecated calls and bugs get logged. */
export function loggingHooks(logger: Logger): LoggingHooks {
  return {
    onResponse: (event) => logRequest(logger, event),
    onDeprecatedCall: ({ operationId, method, route, requestId, sunsetAt }) =>
      logger.warn(
        { operationId, method, route, requestId, sunsetAt: sunsetAt.toISOString() },
        'deprecated operation called',
      ),
    // The client saw only `internal_error`; the operator gets the error and its stack.
    onError: ({ error, method, route, requestId }) =>
      logger.error({ err: error, method, route, requestId }, 'unexpected error'),
  };
}
