import { type RawAnswer, rawRequest } from '@petstore/conformance';
import fc from 'fast-check';

/** One generated request: its bytes, and what is needed to judge the answer. */
export interface FuzzRequest {
  readonly bytes: Buffer;
  readonly method: string;
  /** For a failure message. */
  readonly summary: string;
}

const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'PURGE',
  'CONNECT',
];
const PATHS = [
  '/v1/pets',
  '/v1/pets/1',
  '/v1/pets/0',
  '/v1/pets/abc',
  '/v1/pets/9007199254740993',
  '/v1/pets/%ff',
  '/v1/openapi.json',
  '/v1/store/orders',
  '/v1',
  '/v1/',
  '/V1/pets',
  '/v1//pets',
  '/v1/pets/../../healthz',
  '/healthz',
  '/readyz',
  '/',
  '/x',
  '//v1/pets',
  '/%',
  '/docs',
  '/metrics',
  '*',
  'http://127.0.0.1/v1/pets',
  'http://[bad/v1/pets',
];
const QUERIES = [
  '',
  '?limit=2',
  '?limit=0',
  '?limit=abc',
  '?status=sold',
  '?cursor=%%',
  '?a=1&a=2',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'multipart/form-data; boundary=x',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'text/plain',
  'application/json; charset=nope',
  ';;;',
];
const ENCODINGS = ['gzip', 'deflate', 'br', 'identity', 'gzip, deflate', 'x-unknown'];
const BODIES = [
  '{"name":"Fuzz","categoryId":1}',
  '{"name":"Fuzz","categoryId":1,"status":"sold"}',
  '{"name":"","categoryId":0}',
  '{',
  '[]',
  'null',
  'hello',
  '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n',
  'a=1&b=2',
  '{"name":"x","categoryId":1e400}',
];

/** Header lines that may be added, in any combination. */
const extraHeader = () =>
  fc.oneof(
    fc.constantFrom(
      'Cookie: a="b; =c;;',
      'Cookie: session=1',
      'Range: bytes=0-1',
      'Range: bytes=900-1',
      'If-None-Match: *',
      'Accept-Encoding: gzip',
      'Accept: text/html',
      'X-Request-Id: has space',
      `X-Request-Id: ${'r'.repeat(129)}`,
      'Origin: http://evil.example',
      'Access-Control-Request-Method: POST',
      'Expect: 100-continue',
      'Connection: keep-alive, Upgrade',
      'Upgrade: websocket',
      'Idempotency-Key: fuzz-key',
      'X-Forwarded-For: 1.2.3.4',
    ),
    fc
      .tuple(
        fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/),
        fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
      )
      .map(([name, value]) => `X-${name}: ${value.replace(/[\r\n]/g, ' ')}`),
  );

/** Random requests, inside and outside /v1, with odd headers, encodings and bodies. */
export function fuzzRequestArbitrary(key: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('GET', 'POST') },
        { weight: 9, arbitrary: fc.constantFrom(...METHODS) },
        { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,8}$/) },
      ),
      path: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('/v1/pets', '/v1/pets/1') },
        { weight: 6, arbitrary: fc.constantFrom(...PATHS) },
        {
          weight: 1,
          arbitrary: fc
            .webPath()
            .map((path) => (path.startsWith('/') ? path : `/${path}`))
            .filter((path) => path.length < 200),
        },
      ),
      query: fc.constantFrom(...QUERIES),
      contentType: fc.option(
        fc.oneof(
          { weight: 2, arbitrary: fc.constant('application/json') },
          { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        ),
        { freq: 3 },
      ),
      encoding: fc.option(fc.constantFrom(...ENCODINGS), { freq: 2 }),
      body: fc.option(
        fc.oneof(
          { weight: 3, arbitrary: fc.constant('{"name":"Fuzz","categoryId":1}') },
          { weight: 4, arbitrary: fc.constantFrom(...BODIES) },
          { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
        ),
        { freq: 3 },
      ),
      chunked: fc.boolean(),
      // Half the requests carry the right key, so the API's own answers get their share.
      auth: fc.constantFrom(
        `Bearer ${key}`,
        `Bearer ${key}`,
        `bearer ${key}`,
        'Bearer wrong-key',
        'Basic Zm9vOmJhcg==',
        undefined,
      ),
      headers: fc.uniqueArray(extraHeader(), { maxLength: 4 }),
      requestId: fc.option(fc.integer({ min: 0, max: 1e9 }), { freq: 4 }),
    })
    .map(
      ({ method, path, query, contentType, encoding, body, chunked, auth, headers, requestId }) => {
        const lines = [`${method} ${path}${path === '*' ? '' : query} HTTP/1.1`, 'Host: 127.0.0.1'];
        if (auth !== undefined) lines.push(`Authorization: ${auth}`);
        if (contentType !== null) lines.push(`Content-Type: ${contentType}`);
        if (encoding !== null) lines.push(`Content-Encoding: ${encoding}`);
        if (requestId !== null) lines.push(`X-Request-Id: fuzz-${requestId}`);
        lines.push(...headers, 'Connection: close');
        const payload = body === null ? undefined : Buffer.from(body, 'utf8');
        let framed = Buffer.alloc(0);
        if (payload !== undefined && chunked) {
          lines.push('Transfer-Encoding: chunked');
          const chunk =
            payload.length === 0
              ? []
              : [Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')];
          framed = Buffer.concat([...chunk, Buffer.from('0\r\n\r\n')]);
        } else if (payload !== undefined) {
          lines.push(`Content-Length: ${payload.length}`);
          framed = payload;
        }
        const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
        const summary = `${lines.join(' | ')}${body === null ? '' : ` | body ${JSON.stringify(body).slice(0, 80)}`}`;
        return { bytes: Buffer.concat([head, framed]), method, summary };
      },
    );
}

/** The requests of run `seed`, the same every time. */
export const fuzzRequests = (key: string, count: number, seed: number): FuzzRequest[] =>
  fc.sample(fuzzRequestArbitrary(key), { numRuns: count, seed });

/** What is wrong with an answer, or undefined when it is an Error body or a documented success. */
/** Host routes whose success is not JSON, with the media type each answers in. */
const TEXT_SUCCESSES: Readonly<Record<string, string>> = {
  '/metrics': 'text/plain',
  '/docs': 'text/html',
};

export function judge(request: FuzzRequest, answer: RawAnswer): string | undefined {
  if (answer.status === undefined) return 'no answer';
  if (answer.status >= 500) return `a ${answer.status}`;
  if (answer.headers['x-request-id'] === undefined) return 'no X-Request-Id';
  if (request.method === 'HEAD') return undefined;
  // The reference page answers a matching If-None-Match (`*` too) with a bodiless 304.
  if (answer.status === 304) return answer.body === '' ? undefined : 'a 304 with a body';
  const path = (request.summary.split(' ')[1] ?? '').split('?')[0] ?? '';
  const textType = TEXT_SUCCESSES[path];
  if (answer.status === 200 && textType !== undefined) {
    const type = answer.headers['content-type'] ?? '';
    return type.startsWith(textType) ? undefined : `${path} answered as ${type}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `a body that is not JSON: ${JSON.stringify(answer.body.slice(0, 80))}`;
  }
  if (answer.status < 300) return undefined; // pets, a pet, the document, a health check
  const error = body as { code?: unknown; message?: unknown; status?: unknown };
  if (
    typeof error.code !== 'string' ||
    typeof error.message !== 'string' ||
    error.status !== answer.status
  ) {
    return `not the Error body: ${answer.body.slice(0, 120)}`;
  }
  return undefined;
}

export interface FuzzResult {
  /** Answers per status (`none` for no answer). */
  readonly counts: Readonly<Record<string, number>>;
  /** The first few requests whose answer was wrong, with what was wrong. */
  readonly failures: ReadonlyArray<{ readonly request: string; readonly problem: string }>;
  /** Request ids the answers carried. */
  readonly requestIds: readonly string[];
}

/** Sends every request on its own connection, `concurrency` at a time, and judges the answers. */
export async function runFuzz(
  port: number,
  requests: readonly FuzzRequest[],
  concurrency = 8,
): Promise<FuzzResult> {
  const counts: Record<string, number> = {};
  const failures: Array<{ request: string; problem: string }> = [];
  const requestIds: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests.length) {
      const request = requests[next++] as FuzzRequest;
      const answer = await rawRequest(port, request.bytes, {
        waitMs: 10_000,
        head: request.method === 'HEAD',
      });
      const key = String(answer.status ?? 'none');
      counts[key] = (counts[key] ?? 0) + 1;
      const requestId = answer.headers['x-request-id'];
      if (requestId !== undefined) requestIds.push(requestId);
      const problem = judge(request, answer);
      if (problem !== undefined && failures.length < 10) {
        failures.push({ request: request.summary, problem });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { counts, failures, requestIds };
}
