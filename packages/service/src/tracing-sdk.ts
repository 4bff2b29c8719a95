import type { IncomingMessage, ServerResponse } from 'node:http';
import { register } from 'node:module';
import {
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { PetStoreHooks } from '@petstore/core';

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

const TRACER = 'petstore';

/**
 * The official Node SDK with the OTLP/HTTP exporter (endpoint, headers, service name and
 * resource from the standard OTEL_* variables) and the `pg` instrumentation. `pg` is loaded
 * through ESM by the storage, so the SDK's import hook is registered first.
 */
export function startOpenTelemetry(mountPath: string): Tracing {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const sdk = new NodeSDK({
    traceExporter: new OTLPTraceExporter(),
    // Bind parameters' values stay out of spans (`enhancedDatabaseReporting` would record
    // them as `db.postgresql.values`): a keyed create's scopes and Idempotency-Key travel
    // there, never in `db.query.text` (see the storage's bound-query.ts).
    instrumentations: [
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  const tracer = trace.getTracer(TRACER);

  const serverSpan: Tracing['serverSpan'] = (req, res, handle) => {
    const parent = propagation.extract(context.active(), req.headers);
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': (req.url ?? '/').split('?')[0] ?? '/',
          'url.scheme': 'http',
          'network.protocol.version': req.httpVersion,
          'server.port': req.socket.localPort ?? 0,
          'client.address': req.socket.remoteAddress ?? '',
        },
      },
      parent,
    );
    res.once('close', () => endServerSpan(span, res));
    context.with(trace.setSpan(parent, span), handle);
  };

  const aroundOperation: Tracing['aroundOperation'] = (event, run) => {
    // The HTTP span takes the route the core matched: `GET /v1/pets/{petId}`.
    const server = trace.getActiveSpan();
    server?.setAttribute('http.route', `${mountPath}${event.route}`);
    server?.updateName(`${event.method} ${mountPath}${event.route}`);
    return tracer.startActiveSpan(
      event.operationId,
      {
        attributes: {
          'petstore.operation_id': event.operationId,
          'http.route': event.route,
          'petstore.request_id': event.requestId,
        },
      },
      (span) => {
        let result: ReturnType<typeof run>;
        try {
          result = run();
        } catch (error) {
          span.recordException(error as Error);
          span.end();
          throw error;
        }
        if (!(result instanceof Promise)) {
          span.end();
          return result;
        }
        return result.finally(() => span.end()) as typeof result;
      },
    );
  };

  return {
    serverSpan,
    aroundOperation,
    logFields() {
      const span = trace.getActiveSpan();
      if (span === undefined) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    shutdown: () => sdk.shutdown(),
  };
}

function endServerSpan(span: Span, res: ServerResponse): void {
  span.setAttribute('http.response.status_code', res.statusCode);
  if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}
