import { randomUUID } from 'node:crypto';
import {
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Socket } from 'node:net';
import {
  type ErrorCode,
  errorResponse,
  type PetStoreResponse,
  protocolRefusal,
  requestIdOf,
} from '@petstore/core';
import { lingeringClose, lingerOnCloseAll } from './linger.js';

/** One request the server refused before any route saw it: what a host may log. */
export interface ClientErrorEvent {
  readonly status: number;
  readonly code: ErrorCode;
  /** The method, when the parser got that far; `-` otherwise. */
  readonly method: string;
  readonly requestId: string;
  /** Node's error code (`HPE_HEADER_OVERFLOW`...), or what was wrong with the request. */
  readonly reason: string;
}

export interface ClientErrorHandlerOptions {
  /** Called once per refused request (the socket is already being answered). */
  readonly onClientError?: ((event: ClientErrorEvent) => void) | undefined;
}

/** What Node's `clientError` carries besides the message. */
type ClientError = Error & { readonly code?: string; readonly rawPacket?: Buffer };

const REFUSALS = {
  HPE_HEADER_OVERFLOW: [
    'headers_too_large',
    'The request headers are larger than this server accepts.',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request was not received in time.'],
  HPE_INVALID_VERSION: ['http_version_not_supported', 'Send the request as HTTP/1.1.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [
    'payload_too_large',
    'The chunk extensions are larger than this server accepts.',
  ],
} as const satisfies Record<string, readonly [ErrorCode, string]>;

const NOT_HTTP: readonly [ErrorCode, string] = [
  'invalid_request',
  'The request is not valid HTTP/1.1.',
];

/** The answer as raw HTTP/1.1 bytes, for a socket no response object is left to write to. */
function rawAnswer({ status, headers, body = '' }: PetStoreResponse): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(body)}`, 'connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

const refusal = (code: ErrorCode, message: string, requestId: string): PetStoreResponse =>
  errorResponse({ kind: 'error', code, message }, { 'x-request-id': requestId });

/** The response in progress on a socket, if any (Node keeps it there; not in its typings). */
const responseOn = (socket: Socket): ServerResponse | undefined =>
  (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;

/** The method, when the parser got that far: the request line's first word. */
function methodOf(error: ClientError, response: ServerResponse | undefined): string {
  if (response?.req.method !== undefined) return response.req.method;
  const first = error.rawPacket?.toString('latin1', 0, 24).split(' ', 1)[0] ?? '';
  return /^[A-Z]{1,20}$/.test(first) ? first : '-';
}

/**
 * Answers on the raw socket, then lets it go, lingering: what the client still sends is read and
 * thrown away (never parsed), so it reads the answer rather than a reset.
 */
function answerSocket(socket: Socket, answer: PetStoreResponse): void {
  socket.on('error', () => socket.destroy());
  socket.write(rawAnswer(answer));
  lingeringClose(socket);
}

/** A `\` before the query: a URL parser reads it as `/`, other servers do not. Ambiguous: refused. */
function hasBackslashInPath(target: string): boolean {
  const backslash = target.indexOf('\\');
  if (backslash === -1) return false;
  const query = target.indexOf('?');
  return query === -1 || backslash < query;
}

/**
 * What is wrong with the request line or the Host header, before any route:
 * a version other than HTTP/1.x (505), a backslash in the path (400), or not
 * exactly one usable Host (400). RFC 9112 section 3.2 asks HTTP/1.1 requests
 * for a Host, not HTTP/1.0 ones: a balancer's bare `GET /readyz HTTP/1.0` is
 * answered like any request.
 */
function requestProblem(req: IncomingMessage): readonly [ErrorCode, string] | undefined {
  if (req.httpVersionMajor !== 1) {
    return ['http_version_not_supported', 'Send the request as HTTP/1.1.'];
  }
  if (hasBackslashInPath(req.url ?? '')) {
    return ['invalid_request', 'The request path has a backslash; send / instead.'];
  }
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
  }
  if (hosts === 0 && req.httpVersionMinor >= 1) {
    return ['invalid_request', 'An HTTP/1.1 request must have a Host header.'];
  }
  if (hosts > 1) return ['invalid_request', 'The request must have one Host header, not several.'];
  // The rules every host keeps (a missing or unusable Host...), as the fetch adapter keeps them.
  const refusal = protocolRefusal(req.method ?? 'GET', req.headers);
  return refusal === undefined ? undefined : [refusal.code, refusal.message];
}

function onClientError(report: (event: ClientErrorEvent) => void) {
  return (error: ClientError, socket: Socket): void => {
    const response = responseOn(socket);
    // A reset or a half-written answer leaves nothing to say: the connection just goes.
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent === true) {
      socket.destroy();
      return;
    }
    // Garbage after a complete request: that request still gets its answer, then the
    // connection closes; what follows it is not a request and gets no answer of its own.
    if (response?.req.complete === true) {
      response.setHeader('connection', 'close');
      response.once('close', () => socket.destroySoon());
      return;
    }
    const requestId = response === undefined ? randomUUID() : requestIdOf(response.req.headers);
    const known = REFUSALS[error.code as keyof typeof REFUSALS] as
      | readonly [ErrorCode, string]
      | undefined;
    const [code, message] = known ?? NOT_HTTP;
    const answer = refusal(code, message, requestId);
    answerSocket(socket, answer);
    const reason = error.code ?? error.message;
    report({ status: answer.status, code, method: methodOf(error, response), requestId, reason });
  };
}

/**
 * For a request with `Expect: 100-continue`: `100 Continue` once something starts reading its
 * body (the core, after authentication and routing; a body parser upstream), never before. A
 * request answered first (a 401 to a client without a key) gets its final answer alone, and its
 * body is never asked for.
 */
export function continueWhenRead(req: IncomingMessage, res: ServerResponse): void {
  req.once('resume', () => {
    if (!res.headersSent) res.writeContinue();
  });
}

/**
 * Takes over what Node answers itself on `server` (an Express `app.listen()` result,
 * Fastify's `app.server`, hapi's `server.listener`, Hono's `serve()` result): requests its
 * parser refuses (`clientError`: 400, 408, 413, 431, 505), an `Expect` other than
 * `100-continue` (417), `CONNECT` (400), a version other than HTTP/1.x (505) and a missing,
 * repeated or unusable `Host` (400) get the Error
 * body with `X-Request-Id` and `Connection: close` instead of an empty or framework body.
 * Call it once the framework has attached its request listener; it replaces any
 * `clientError` listener the framework added.
 */
export function installClientErrorHandler(
  server: Server,
  options: ClientErrorHandlerOptions = {},
): void {
  const report = (event: ClientErrorEvent) => {
    try {
      options.onClientError?.(event);
    } catch {
      // A logging hook must not break the answer.
    }
  };
  server.removeAllListeners('clientError');
  server.on('clientError', onClientError(report));
  // Every answer that ends its connection (a body left unread, a host route's, a framework's)
  // closes lingering.
  lingerOnCloseAll(server);

  // Node has no answer for CONNECT without a listener: it just drops the connection.
  server.removeAllListeners('connect');
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const requestId = requestIdOf(req.headers);
    const message = 'CONNECT is not supported: this server is not a proxy.';
    answerSocket(socket, refusal('invalid_request', message, requestId));
    report({ status: 400, code: 'invalid_request', method: 'CONNECT', requestId, reason: message });
  });

  const answer = (req: IncomingMessage, res: ServerResponse, code: ErrorCode, message: string) => {
    const requestId = requestIdOf(req.headers);
    const { status, headers, body } = refusal(code, message, requestId);
    res.shouldKeepAlive = false;
    res.writeHead(status, { ...headers, connection: 'close' }).end(body);
    report({ status, code, method: req.method ?? '-', requestId, reason: message });
  };
  server.removeAllListeners('checkExpectation');
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    answer(req, res, 'expectation_failed', 'The only expectation met is "Expect: 100-continue".');
  });

  // Node would answer a missing Host itself, with an empty 400: the check moves here.
  // A public field of http.Server (set from the option) that @types/node does not declare.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  const onRequest = server.listeners('request') as RequestListener[];
  const run =
    (listeners: readonly RequestListener[]) => (req: IncomingMessage, res: ServerResponse) => {
      const problem = requestProblem(req);
      if (problem !== undefined) return answer(req, res, ...problem);
      for (const listener of listeners) listener.call(server, req, res);
    };
  server.removeAllListeners('request');
  server.removeAllListeners('checkContinue');
  server.on('request', run(onRequest));
  // Without a `checkContinue` listener Node sends `100 Continue` at once, before anyone has
  // authenticated the request: this one sends it only when the body is read.
  const continued: RequestListener = (req, res) => {
    continueWhenRead(req, res);
    for (const listener of onRequest) listener.call(server, req, res);
  };
  // A framework's own `checkContinue` listener (hapi's) sends 100 before any handler has run:
  // such a request goes to its `request` listener, and 100 Continue follows the rule above.
  server.on('checkContinue', run([continued]));
}
