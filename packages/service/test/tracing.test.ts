import { describe, expect, it } from 'vitest';
import { startTracing, tracingWanted } from '../src/tracing.js';

describe('tracing is on only when the standard variables ask for it', () => {
  it('needs an OTLP endpoint, and honours OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'pets' })).toBe(false);
    expect(tracingWanted(endpoint)).toBe(true);
    expect(
      tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }),
    ).toBe(true);
    expect(tracingWanted({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingWanted({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('unset: starts nothing', async () => {
    expect(await startTracing({}, '/v1')).toBeUndefined();
  });
});
