import { createMount, DEFAULT_API_PATH } from '@petstore/core';
import fc from 'fast-check';

/** The mount path every host serves the API at. */
export const BASE = DEFAULT_API_PATH;
const API_MOUNT = createMount({ mountPath: BASE });

/** One generated request: its bytes exactly as sent, and what is needed to judge the answer. */
export interface FuzzRequest {
  readonly bytes: Buffer;
  readonly method: string;
  /** The request target as sent. */
  readonly target: string;
  /** Under the mount path once the target is read as a URL parser reads it. */
  readonly underBase: boolean;
  /** One line per request, for reports. */
  readonly summary: string;
  /** What it was made of, for the rules that recognise known differences. */
  readonly parts: RequestParts;
}

/** The features of a request a known difference is recognised by. */
export interface RequestParts {
  readonly method: string;
  readonly version: string;
  readonly hosts: readonly string[];
  readonly framing: 'length' | 'chunked' | 'both' | 'two-lengths' | 'none';
  readonly hasBody: boolean;
  readonly contentTypes: readonly string[];
  readonly extra: readonly string[];
}

/** Spellings of the mount path: the one that is it, and the ones that are not, or are only once read as a URL. */
const BASES = [
  BASE,
  '/V1',
  '/%76%31',
  '/v%31',
  '//v1',
  '/./v1',
  '/x/../v1',
  '/v1/.',
  '/v1/..',
  '/v1/%2e',
  '/v1/%2E%2E/v1',
  '/v1\\.',
  '',
] as const;

/** What follows the mount path: the contract's paths, near misses and odd spellings. */
const BELOW = [
  '/pets',
  '/pets',
  '/pets/1',
  '/pets/2',
  '/pets/0',
  '/pets/abc',
  '/pets/%31',
  '/pets/9007199254740993',
  '/pets/',
  '/pets//1',
  '/pets/1/',
  '/PETS',
  '/pets%2F1',
  '/pets/%ff',
  '/pets/%zz',
  '/pets\\1',
  '/pets/./1',
  '/pets/../pets',
  '/store/orders',
  '/openapi.json',
  '',
  '/',
  '/nope',
  '/%',
  '/pets/{1}',
  '/pets/|',
] as const;

const QUERIES = [
  '',
  '?limit=2',
  '?limit=0',
  '?limit=101',
  '?limit=05',
  '?limit=%31',
  '?limit=1&limit=1',
  '?limit=abc',
  '?status=sold',
  '?status=SOLD',
  '?status=',
  '?cursor=MQ',
  '?cursor=!',
  '?cursor=%4dQ',
  '?limit=1&status=pending&cursor=MQ',
  '?a=%zz',
  '?limit=2#frag',
  "?x='y'",
] as const;

const METHODS = [
  'GET',
  'GET',
  'GET',
  'POST',
  'POST',
  'HEAD',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'PURGE',
  'FOO',
  'get',
  'CONNECT',
] as const;

const BODIES = [
  '{"name":"Rex","categoryId":1}',
  '{"name":"Tom","categoryId":2,"status":"sold"}',
  '{"name":"","categoryId":0}',
  '{"name":"Rex","categoryId":1.0000000000000001}',
  '{"name":"Rex","categoryId":1,"id":3}',
  '{',
  '[]',
  'null',
  '',
  '   ',
  'name=Rex',
  '{"name":"\\u0000","categoryId":1}',
  '{"name":"Ünïcødé 🐈","categoryId":1}',
] as const;

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json, text/plain',
  '',
] as const;

/** Header lines beside the request's own, any number of them, in any order. */
const EXTRA_HEADERS = [
  'Content-Encoding: gzip',
  'Content-Encoding: identity',
  'Expect: 100-continue',
  'Expect: foo',
  'Idempotency-Key: fuzz-1',
  'Idempotency-Key: fuzz-2',
  'Idempotency-Key: has space',
  'X-Request-Id: fuzz-request',
  'X-Request-Id: has space',
  'Accept: text/html',
  'Accept-Encoding: gzip',
  'Cookie: a="b; =c;;',
  'Range: bytes=0-1',
  'Origin: http://evil.example',
  'Access-Control-Request-Method: POST',
  'Connection: keep-alive, Upgrade',
  'Upgrade: websocket',
  'X-Forwarded-Prefix: /evil',
] as const;

/** Authorization as sent: none, good, odd spellings of good, bad, and repeated. */
const authorization = (key: string) =>
  fc.constantFrom(
    [] as string[],
    [`Bearer ${key}`],
    [`Bearer ${key}`],
    [`Bearer ${key}`],
    [`bearer ${key}`],
    [`BEARER  ${key}`],
    [`Bearer ${key} `],
    [`Bearer\t${key}`],
    ['Bearer wrong-key-0123456789'],
    ['Basic Zm9vOmJhcg=='],
    ['Bearer'],
    [`Bearer ${key}`, `Bearer ${key}`],
    [`Bearer ${key}`, 'Bearer wrong-key-0123456789'],
    ['Bearer wrong-key-0123456789', `Bearer ${key}`],
  );

/** Hosts as sent: the usual one, none, two, and odd ones. */
const HOSTS = [
  ['127.0.0.1'],
  ['127.0.0.1'],
  ['127.0.0.1'],
  ['localhost:80'],
  [],
  ['a', 'b'],
  ['127.0.0.1', '127.0.0.1'],
  ['exa mple'],
] as const;

/** How the body is framed: a right Content-Length, chunked, both, two lengths, or none. */
const FRAMINGS = ['length', 'length', 'chunked', 'both', 'two-lengths', 'none'] as const;

interface Parts {
  /** A request a well-behaved client sends: one good Host, HTTP/1.1, a right length, the key. */
  wellFormed: boolean;
  method: string;
  absolute: boolean;
  base: string;
  below: string;
  query: string;
  auth: readonly string[];
  hosts: readonly string[];
  contentTypes: readonly string[];
  body: string | null;
  large: boolean;
  framing: (typeof FRAMINGS)[number];
  extra: readonly string[];
  version: string;
}

function frame(body: Buffer, framing: Parts['framing']): { headers: string[]; bytes: Buffer } {
  const chunked = Buffer.concat([
    body.length === 0 ? Buffer.alloc(0) : Buffer.from(`${body.length.toString(16)}\r\n`),
    body,
    body.length === 0 ? Buffer.alloc(0) : Buffer.from('\r\n'),
    Buffer.from('0\r\n\r\n'),
  ]);
  switch (framing) {
    case 'length':
      return { headers: [`Content-Length: ${body.length}`], bytes: body };
    case 'chunked':
      return { headers: ['Transfer-Encoding: chunked'], bytes: chunked };
    case 'both':
      return {
        headers: [`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'],
        bytes: chunked,
      };
    case 'two-lengths':
      return {
        headers: [`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`],
        bytes: body,
      };
    case 'none':
      return { headers: [], bytes: body };
  }
}

/** The request's bytes; the request line and headers in latin1, as they go on the wire. */
/** What a well-formed request has whatever else was drawn. */
const WELL_FORMED = {
  hosts: ['127.0.0.1'],
  version: 'HTTP/1.1',
  framing: 'length',
} as const satisfies Partial<Parts>;

function build(drawn: Parts): FuzzRequest {
  const parts: Parts = drawn.wellFormed ? { ...drawn, ...WELL_FORMED } : drawn;
  const path = `${parts.base}${parts.below}${parts.query}`;
  const target = parts.absolute ? `http://127.0.0.1${path}` : path || '/';
  const lines = [`${parts.method} ${target} ${parts.version}`];
  for (const host of parts.hosts) lines.push(`Host: ${host}`);
  for (const auth of parts.auth) lines.push(`Authorization: ${auth}`);
  for (const type of parts.contentTypes) lines.push(`Content-Type: ${type}`);
  lines.push(...parts.extra);
  let body: Buffer = Buffer.alloc(0);
  if (parts.body !== null) {
    const text = parts.large ? `{"name":"${'x'.repeat(20_000)}","categoryId":1}` : parts.body;
    const framed = frame(Buffer.from(text, 'utf8'), parts.framing);
    lines.push(...framed.headers);
    body = framed.bytes;
  }
  lines.push('Connection: close');
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  const underBase = API_MOUNT.below(target) !== undefined;
  const shownBody =
    parts.body === null ? '' : ` | body ${parts.large ? '(20 KB)' : JSON.stringify(parts.body)}`;
  return {
    bytes: Buffer.concat([head, body]),
    method: parts.method,
    target,
    underBase,
    summary: `${lines.join(' | ')}${shownBody}`,
    parts: {
      method: parts.method,
      version: parts.version,
      hosts: parts.hosts,
      framing: parts.framing,
      hasBody: parts.body !== null,
      contentTypes: parts.contentTypes,
      extra: parts.extra,
    },
  };
}

/** Anything: every field drawn from its own list, odd and hostile values included. */
function anyRequest(key: string): fc.Arbitrary<Parts> {
  return fc.record({
    // Six in ten well-formed at the HTTP level; the rest as drawn.
    wellFormed: fc.integer({ min: 0, max: 9 }).map((n) => n < 6),
    method: fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...METHODS) },
      { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,8}$/) },
    ),
    // One in ten in absolute form, as sent to a proxy.
    absolute: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    base: fc.oneof(
      { weight: 6, arbitrary: fc.constant(BASE) },
      { weight: 4, arbitrary: fc.constantFrom(...BASES) },
    ),
    below: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...BELOW) },
      {
        weight: 1,
        arbitrary: fc.webPath().filter((path) => path.length < 60 && !/[\s]/.test(path)),
      },
    ),
    query: fc.constantFrom(...QUERIES),
    auth: authorization(key),
    hosts: fc.constantFrom(...HOSTS),
    contentTypes: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...CONTENT_TYPES).map((type) => [type]) },
      { weight: 2, arbitrary: fc.constant([] as string[]) },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.constantFrom(...CONTENT_TYPES), fc.constantFrom(...CONTENT_TYPES)),
      },
    ),
    body: fc.option(fc.constantFrom(...BODIES), { freq: 2 }),
    large: fc.integer({ min: 0, max: 19 }).map((n) => n === 0),
    framing: fc.constantFrom(...FRAMINGS),
    extra: fc.uniqueArray(fc.constantFrom(...EXTRA_HEADERS), { maxLength: 3 }),
    version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0'),
  });
}

/** What a client of the contract sends: a list, a create (keyed or not), a get, the document. */
function contractRequest(key: string): fc.Arbitrary<Parts> {
  const operation = fc.constantFrom(
    { method: 'GET', below: '/pets', body: null },
    { method: 'POST', below: '/pets', body: '{"name":"Rex","categoryId":1}' },
    { method: 'POST', below: '/pets', body: '{"name":"Tom","categoryId":2,"status":"sold"}' },
    { method: 'GET', below: '/pets/1', body: null },
    { method: 'GET', below: '/pets/3', body: null },
    { method: 'GET', below: '/store/orders', body: null },
    { method: 'GET', below: '/openapi.json', body: null },
  );
  return fc
    .record({
      operation,
      query: fc.constantFrom('', '', '?limit=2', '?status=sold', '?limit=1&status=available'),
      auth: fc.constantFrom([`Bearer ${key}`], [`Bearer ${key}`], [`Bearer ${key}`], []),
      extra: fc.uniqueArray(
        fc.constantFrom(
          'Idempotency-Key: fuzz-1',
          'Idempotency-Key: fuzz-2',
          'X-Request-Id: fuzz-request',
        ),
        { maxLength: 2 },
      ),
    })
    .map(({ operation: { method, below, body }, query, auth, extra }) => ({
      wellFormed: true,
      method,
      absolute: false,
      base: BASE,
      below,
      query: body === null ? query : '',
      auth,
      hosts: ['127.0.0.1'],
      contentTypes: body === null ? [] : ['application/json'],
      body,
      large: false,
      framing: 'length' as const,
      extra,
      version: 'HTTP/1.1',
    }));
}

/**
 * Requests of every edge class (dot segments, escapes and case in the mount path, repeated
 * or conflicting Authorization, Content-Type, Content-Length and Host, absolute-form
 * targets, trailing slashes, methods outside the contract, bad escapes, what Node's parser
 * refuses) and random mixes of them, with a share of plain contract requests so that the
 * API's own answers (pages, creates, replays) are compared too.
 */
export function fuzzRequestArbitrary(key: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .oneof(
      { weight: 3, arbitrary: contractRequest(key) },
      { weight: 7, arbitrary: anyRequest(key) },
    )
    .map((parts) => build(parts));
}

/** The requests of run `seed`, the same every time for the same key and count. */
export const fuzzRequests = (key: string, count: number, seed: number): FuzzRequest[] =>
  fc.sample(fuzzRequestArbitrary(key), { numRuns: count, seed });
