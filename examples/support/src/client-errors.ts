import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { requestIdOf } from '@petstore/core';
import { errorAnswer, newRequestId, rawAnswer } from './error-answers.js';
import type { HostAnswer } from './host-routes.js';
import { type Logger, logRequest } from './logging.js';

/** What Node's `clientError` carries besides the message. */
type ClientError = Error & { readonly code?: string; readonly rawPacket?: Buffer };

/** The response in progress on a socket, if any (Node keeps it there; not in the typings). */
const responseOn = (socket: Socket): ServerResponse | undefined =>
  (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;

/** The method, when the parser got that far: the request line's first word. */
function methodOf(error: ClientError, response: ServerResponse | undefined): string {
  if (response?.req.method !== undefined) return response.req.method;
  const first = error.rawPacket?.toString('latin1', 0, 24).split(' ', 1)[0] ?? '';
  return /^[A-Z]{1,20}$/.test(first) ? first : '-';
}

function answerFor(error: ClientError, requestId: string): HostAnswer {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return errorAnswer(
        'headers_too_large',
        'The request headers are larger than this service accepts.',
        requestId,
        true,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errorAnswer(
        'request_timeout',
        'The request was not received in time.',
        requestId,
        true,
      );
    default:
      return errorAnswer('invalid_request', 'The request is not valid HTTP/1.1.', requestId, true);
  }
}

/**
 * Answers what Node's HTTP parser refuses (bad syntax, headers too large, a request too slow)
 * with the Error body instead of Node's empty one, and an `Expect` other than `100-continue`
 * with a 417, and a CONNECT with a 400: each with `X-Request-Id`, `Connection: close` and one log line. Replaces any
 * `clientError` listener already there (hapi's answers with its own body).
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  server.removeAllListeners('clientError');
  server.on('clientError', (error: ClientError, socket: Socket) => {
    const response = responseOn(socket);
    const reason = error.code ?? error.message;
    // A reset or a half-written answer leaves nothing to say: the connection just goes.
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent === true) {
      logger.debug({ reason }, 'connection dropped');
      socket.destroy();
      return;
    }
    // Garbage after a complete request: that request still gets its answer, then the
    // connection closes; what follows it is not a request and gets no answer of its own.
    if (response?.req.complete) {
      logger.debug({ reason }, 'connection closed after the request in flight');
      response.setHeader('connection', 'close');
      response.once('close', () => socket.destroySoon());
      return;
    }
    const requestId = response === undefined ? newRequestId() : requestIdOf(response.req.headers);
    const answer = answerFor(error, requestId);
    socket.end(rawAnswer(answer));
    // Whatever the client still sends is not read: the socket goes once the answer is out.
    socket.once('finish', () => socket.destroy());
    logRequest(logger, {
      method: methodOf(error, response),
      route: undefined,
      status: answer.status,
      durationMs: 0,
      requestId,
      reason,
    });
  });

  // Node has no answer for CONNECT without a listener: it just drops the connection.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const requestId = requestIdOf(req.headers);
    const answer = errorAnswer(
      'invalid_request',
      'CONNECT is not supported: this service is not a proxy.',
      requestId,
      true,
    );
    socket.on('error', () => socket.destroy());
    socket.end(rawAnswer(answer));
    socket.once('finish', () => socket.destroy());
    logRequest(logger, {
      method: 'CONNECT',
      route: undefined,
      status: answer.status,
      durationMs: 0,
      requestId,
    });
  });

  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const requestId = requestIdOf(req.headers);
    const answer = errorAnswer(
      'expectation_failed',
      'The only expectation this service meets is "Expect: 100-continue".',
      requestId,
      true,
    );
    res.writeHead(answer.status, answer.headers).end(answer.body);
    logRequest(logger, {
      method: req.method ?? '-',
      route: undefined,
      status: answer.status,
      durationMs: performance.now() - started,
      requestId,
    });
  });
}
