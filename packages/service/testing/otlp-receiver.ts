import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes?: readonly { key: string; value: Record<string, unknown> }[];
}
interface OtlpBody {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: OtlpSpan['attributes'] };
    readonly scopeSpans?: readonly { readonly spans?: readonly OtlpSpan[] }[];
  }[];
}

export interface OtlpReceiver {
  readonly url: string;
  /** Every span received, with its resource's `service.name`. */
  readonly spans: (OtlpSpan & { service: unknown })[];
  /** Every export's body as it arrived (JSON text), for searching whole. */
  readonly bodies: string[];
  close(): Promise<void>;
}

/** A real OTLP/HTTP receiver on 127.0.0.1: decodes each JSON export and keeps its spans. */
export async function otlpReceiver(): Promise<OtlpReceiver> {
  const spans: (OtlpSpan & { service: unknown })[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json')) {
        const text = Buffer.concat(chunks).toString('utf8');
        bodies.push(text);
        const body = JSON.parse(text) as OtlpBody;
        for (const resource of body.resourceSpans ?? []) {
          const service = otlpAttribute(resource.resource?.attributes, 'service.name');
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) spans.push({ ...span, service });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The value of one attribute of a span or resource, whatever its type. */
export function otlpAttribute(attributes: OtlpSpan['attributes'], key: string): unknown {
  const value = attributes?.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
}
