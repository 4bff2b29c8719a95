import type { Env } from './config.js';
import type { Tracing } from './tracing-sdk.js';

// `Tracing` is declared beside the SDK (a type-only import, erased: nothing of OpenTelemetry loads
// until `startTracing` asks for it), so the two modules do not import each other.
export type { Tracing };

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
