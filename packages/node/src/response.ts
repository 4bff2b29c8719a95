import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import {
  errorResponse,
  type Handler,
  type HandlerResponse,
  type PetStoreRequest,
} from '@petstore/core';
import { lingerOnClose } from './linger.js';
import type { NodeRequest } from './request.js';

export type NodeResponse = ServerResponse | Http2ServerResponse;

/**
 * Status, headers and body exactly as the core gave them: `writeHead` +
 * `end`, so no framework adds an ETag, a charset or chunked framing. The body
 * is one string (or bytes) already in memory: `end` hands it to the socket, which sends
 * it at the client's pace (Node buffers it, nothing is copied twice).
 */
export function writeResponse(
  req: NodeRequest,
  res: NodeResponse,
  response: HandlerResponse,
): void {
  // The client went away mid-body: nobody to answer, so write nothing and free the socket.
  if (response.aborted === true) {
    res.destroy();
    return;
  }
  const { body, headers } = response;
  // `writeHead`'s flat `[name, value, ...]` form: no copy of the core's
  // object, walked by index (about 1.5 µs less per answer than a spread object).
  const lines: string[] = [];
  for (const name in headers) lines.push(name, headers[name] as string);
  // A known length spares the client chunked framing.
  if (body !== undefined) lines.push('content-length', String(Buffer.byteLength(body)));
  // The core stopped reading an oversized body: what is left on the socket is
  // no next request, so the connection ends with this answer. (HTTP/2 ends
  // just the stream, and forbids the header.) The close lingers, so the client still writing
  // that body reads this answer rather than a reset.
  if (!req.complete && req.httpVersionMajor < 2) {
    lines.push('connection', 'close');
    lingerOnClose(req.socket as Socket);
  }
  // HTTP/2's `writeHead` and `end` take the same arguments; TypeScript cannot call the union.
  const out = res as ServerResponse;
  out.writeHead(response.status, lines);
  out.end(body);
}

const WRITE_FAILED = errorResponse({
  kind: 'error',
  code: 'internal_error',
  message: 'The response could not be written.',
});

/**
 * Hands the request `coreRequest()` builds to the core and writes its answer.
 * When that fails (a header the socket refuses, a store that broke its promise
 * never to reject), `onWriteError` gets the cause and the client a plain JSON
 * 500, or a closed socket if the answer had begun. Never rejects.
 */
export function respond(
  store: Handler,
  req: NodeRequest,
  res: NodeResponse,
  coreRequest: () => PetStoreRequest,
  onWriteError?: (error: unknown) => void,
): Promise<void> {
  const failed = (error: unknown): void => {
    onWriteError?.(error);
    abandon(res);
  };
  // A promise chain, not an async function: one wait, on the core's answer.
  try {
    return store.handle(coreRequest()).then((response) => {
      try {
        writeResponse(req, res, response);
      } catch (error) {
        failed(error);
      }
    }, failed);
  } catch (error) {
    failed(error);
    return Promise.resolve();
  }
}

function abandon(res: NodeResponse): void {
  try {
    if (res.headersSent) throw new Error('too late for another answer');
    const out = res as ServerResponse;
    out.writeHead(WRITE_FAILED.status, WRITE_FAILED.headers);
    out.end(WRITE_FAILED.body);
  } catch {
    res.destroy();
  }
}
