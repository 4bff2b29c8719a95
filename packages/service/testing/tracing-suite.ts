import { sendHttp } from '@petstore/conformance';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from './network.js';
import { otlpAttribute as attribute, type OtlpSpan, otlpReceiver } from './otlp-receiver.js';
import { killStartedApps, startListening } from './process.js';

const KEY = 'tracing-key-0123456789';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

/** OTLP traces of an example app, as a real process, against a real receiver. */
export function describeTracing({ name, appDir }: { name: string; appDir: string }): void {
  afterAll(killStartedApps);

  describe(`the ${name} example app with OpenTelemetry`, () => {
    it('exports the HTTP span (caller’s traceparent continued), the operation span and pg spans beneath, and logs carry the ids', async () => {
      const receiver = await otlpReceiver();
      const db = await createTestDatabase(inject('postgresUrl'));
      try {
        const app = await startListening(appDir, {
          API_KEYS: KEY,
          DATABASE_URL: db.url,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_SERVICE_NAME: `petstore-${name.toLowerCase()}`,
          OTEL_BSP_SCHEDULE_DELAY: '100',
        });
        const created = await sendHttp(app.origin, {
          method: 'POST',
          path: '/v1/pets',
          headers: {
            authorization: `Bearer ${KEY}`,
            'content-type': 'application/json',
            'x-request-id': 'traced-1',
            traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`,
          },
          body: '{"name":"Rex","categoryId":1}',
        });
        expect(created.status).toBe(201);
        app.signal('SIGTERM');
        expect(await app.exited).toBe(0);

        const ours = receiver.spans.filter((span) => span.traceId === TRACE_ID);
        const server = ours.find((span) => span.kind === 2);
        expect(server).toMatchObject({ name: 'POST /v1/pets', parentSpanId: PARENT_ID });
        expect(server?.service).toBe(`petstore-${name.toLowerCase()}`);
        expect(attribute(server?.attributes, 'http.request.method')).toBe('POST');
        expect(attribute(server?.attributes, 'http.route')).toBe('/v1/pets');
        expect(Number(attribute(server?.attributes, 'http.response.status_code'))).toBe(201);
        const operation = ours.find((span) => span.name === 'createPet');
        expect(operation?.parentSpanId).toBe(server?.spanId);
        expect(attribute(operation?.attributes, 'petstore.request_id')).toBe('traced-1');
        // pg's spans (the query, and a pool checkout with its connect) all descend from it.
        const pgSpans = ours.filter((span) => span.name.startsWith('pg'));
        expect(pgSpans.map((span) => span.name)).toContainEqual(
          expect.stringMatching(/^pg\.query/),
        );
        const byId = new Map(ours.map((span) => [span.spanId, span]));
        const ancestors = (span: OtlpSpan): string[] => {
          const parent = span.parentSpanId === undefined ? undefined : byId.get(span.parentSpanId);
          return parent === undefined ? [] : [parent.spanId, ...ancestors(parent)];
        };
        for (const span of pgSpans) expect(ancestors(span)).toContain(operation?.spanId);

        const line = app.logLines().find((entry) => entry.requestId === 'traced-1');
        expect(line).toMatchObject({
          trace_id: TRACE_ID,
          span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
        });
        console.log(
          `${name} tracing: ${ours.length} spans in the trace (${ours.map((span) => span.name).join(', ')})`,
        );
      } finally {
        await receiver.close();
        await db.drop();
      }
    }, 40_000);
  });
}
