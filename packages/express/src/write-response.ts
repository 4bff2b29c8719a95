import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PetStoreResponse } from '@petstore/core';

/** `writeHead` + `end`, not `res.send`, which would add an ETag and rewrite the type. */
export function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: PetStoreResponse,
): void {
  // The client went away mid-body: nobody to answer, so write nothing and free the socket.
  if (response.aborted === true) {
    res.destroy();
    return;
  }
  const headers: Record<string, string> = { ...response.headers };
  // A known length spares the client chunked framing.
  if (response.body !== undefined)
    headers['content-length'] = String(Buffer.byteLength(response.body));
  // The core stopped reading an oversized body: what is left on the socket is
  // no next request, so the connection ends with this answer.
  if (!req.complete) headers.connection = 'close';
  res.writeHead(response.status, headers);
  res.end(response.body);
}

/** When writing failed: a plain JSON 500, or a closed socket; never Express's HTML page. */
export function abandon(res: ServerResponse, fallback: PetStoreResponse): void {
  try {
    if (res.headersSent) throw new Error('too late for another answer');
    res.writeHead(fallback.status, fallback.headers);
    res.end(fallback.body);
  } catch {
    res.destroy();
  }
}
