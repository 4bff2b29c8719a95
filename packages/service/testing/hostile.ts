/** A request sent as raw bytes, and the answer the apps must give it. */
export interface HostileRequest {
  readonly name: string;
  readonly bytes: string | Buffer;
  readonly status: number;
  /** The Error body's `code`; undefined for a success (a health check). */
  readonly code: string | undefined;
  /** The answer must close the connection. */
  readonly closes: boolean;
}

const multipartGzip = (line: string, encoding: string): string =>
  `${line}\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Encoding: ${encoding}\r\nContent-Length: 5\r\n\r\nhello`;

/**
 * What once crashed the hapi app or got a framework's own answer, and what Node's
 * parser refuses: each with the answer both apps now give.
 */
export const HOSTILE_REQUESTS: readonly HostileRequest[] = [
  {
    name: 'multipart + gzip to a path outside /v1',
    bytes: multipartGzip('POST /x HTTP/1.1', 'gzip'),
    status: 404,
    code: 'not_found',
    closes: true,
  },
  {
    name: 'multipart + deflate to POST /healthz',
    bytes: multipartGzip('POST /healthz HTTP/1.1', 'deflate'),
    status: 404,
    code: 'not_found',
    closes: true,
  },
  {
    name: 'multipart + gzip to PUT //v1/pets',
    bytes: multipartGzip('PUT //v1/pets HTTP/1.1', 'gzip'),
    status: 404,
    code: 'not_found',
    closes: true,
  },
  {
    name: 'bad JSON outside /v1',
    bytes:
      'POST /x HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n{',
    status: 404,
    code: 'not_found',
    closes: true,
  },
  {
    name: 'a malformed Cookie on a health check',
    bytes: 'GET /healthz HTTP/1.1\r\nHost: t\r\nCookie: a="b; =c;;\r\n\r\n',
    status: 200,
    code: undefined,
    closes: false,
  },
  {
    name: 'an unsatisfiable Range on a health check',
    bytes: 'GET /healthz HTTP/1.1\r\nHost: t\r\nRange: bytes=900-1\r\n\r\n',
    status: 200,
    code: undefined,
    closes: false,
  },
  {
    name: 'OPTIONS *',
    bytes: 'OPTIONS * HTTP/1.1\r\nHost: t\r\n\r\n',
    status: 400,
    code: 'invalid_request',
    closes: false,
  },
  {
    name: 'a 2 MB body announced to a path outside /v1 (answered without reading it)',
    bytes:
      'POST /x HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{"a":',
    status: 404,
    code: 'not_found',
    closes: true,
  },
  {
    name: 'an unparseable target',
    bytes: 'GET http://[bad/v1/pets HTTP/1.1\r\nHost: t\r\n\r\n',
    status: 400,
    code: 'invalid_request',
    closes: false,
  },
  {
    name: 'Expect: foo',
    bytes: 'GET /healthz HTTP/1.1\r\nHost: t\r\nExpect: foo\r\n\r\n',
    status: 417,
    code: 'expectation_failed',
    closes: true,
  },
  {
    // HAProxy's default `option httpchk GET /readyz`: HTTP/1.0 needs no Host (RFC 9112 section 3.2).
    name: 'a bare HTTP/1.0 health check without Host',
    bytes: 'GET /readyz HTTP/1.0\r\n\r\n',
    status: 200,
    code: undefined,
    closes: true,
  },
  {
    name: 'an HTTP/1.0 request under /v1 without Host (no key)',
    bytes: 'GET /v1/pets HTTP/1.0\r\n\r\n',
    status: 401,
    code: 'unauthorized',
    closes: true,
  },
  {
    name: 'no Host header on HTTP/1.1',
    bytes: 'GET /v1/pets HTTP/1.1\r\n\r\n',
    status: 400,
    code: 'invalid_request',
    closes: false,
  },
  {
    name: 'raw non-ASCII bytes in the target',
    bytes: Buffer.from('GET /v1/p\u00e9ts\u00ff HTTP/1.1\r\nHost: t\r\n\r\n', 'latin1'),
    status: 400,
    code: 'invalid_request',
    closes: true,
  },
  {
    name: 'Content-Length with Transfer-Encoding',
    bytes:
      'POST /v1/pets HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    status: 400,
    code: 'invalid_request',
    closes: true,
  },
  {
    name: 'headers larger than Node accepts',
    bytes: `GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    status: 431,
    code: 'headers_too_large',
    closes: true,
  },
  {
    name: 'not HTTP at all',
    bytes: 'HELLO THERE\r\n\r\n',
    status: 400,
    code: 'invalid_request',
    closes: true,
  },
];
