import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PetStoreHooks } from '@petstore/core';
import type { Env } from './config.js';

/** What the service does with tracing on; absent when the OpenTelemetry variables are unset. */
export interface Tracing {
  /** Runs `handle` inside a server span continuing the caller's `traceparent`. */
  serverSpan(req: IncomingMessage, res: ServerResponse, handle: () => void): void;
  /** The core's hook: a span per operation, named by its operationId, parent of the pg spans. */
  readonly aroundOperation: NonNullable<PetStoreHooks['aroundOperation']>;
  /** `trace_id` and `span_id` of the active span, for every log line of a request. */
  logFields(): Record<string, string>;
  /** Sends what is left and stops the exporter. */
  shutdown(): Promise<void>;
}

/**
 * Whether the standard variables ask for traces: an OTLP endpoint, and the SDK not turned off.
 * When they do not, nothing of OpenTelemetry is loaded and nothing costs anything.
 */
export function tracingWanted(env: Env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return (
    endpoint !== undefined &&
    endpoint !== '' &&
    env.OTEL_SDK_DISABLED !== 'true' &&
    env.OTEL_TRACES_EXPORTER !== 'none'
  );
}

/** Starts the OpenTelemetry SDK when the environment asks for it. Call before loading `pg`. */
export async function startTracing(env: Env, mountPath: string): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const { startOpenTelemetry } = await import('./tracing-sdk.js');
  return startOpenTelemetry(mountPath);
}
