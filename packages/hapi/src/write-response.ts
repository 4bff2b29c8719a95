import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PetStoreResponse } from '@petstore/core';

/**
 * Status, headers and body exactly as the core gave them, straight onto the
 * socket: hapi's own response path would add `cache-control`, `vary`,
 * `accept-ranges`, a charset, and compress or range-slice the body.
 */
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
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  // The core stopped reading an oversized body: what is left on the socket is
  // not a next request, so the connection ends with this response.
  if (!req.complete) res.setHeader('connection', 'close');
  res.end(response.body);
}
