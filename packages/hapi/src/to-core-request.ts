import type { Readable } from 'node:stream';
import type { Request } from '@hapi/hapi';
import type { PetStoreRequest, RequestBody } from '@petstore/core';
import { type Mount, targetPath } from './mount.js';

/**
 * With `parse: false, output: 'stream'` hapi hands over the request stream
 * untouched (through its `peek` tap, if the host listens). GET and HEAD routes
 * and the onRequest fallback have no payload step: the raw stream, then.
 */
const bodyOf = (request: Request): RequestBody =>
  (request.payload as Readable | undefined) ?? request.raw.req;

/**
 * Raw, as sent. Not `request.url.search`: hapi builds that URL from the Host
 * header on first use and throws (a 500) when the header is not a valid host.
 */
function rawQuery(url = ''): string {
  const start = url.indexOf('?');
  return start === -1 ? '' : url.slice(start + 1);
}

/**
 * The path as the client sent it: hapi's `request.path` is normalised
 * (`/pets/%31` becomes `/pets/1`) and `request.params` are decoded (`%2F`
 * becomes `/`), so either would change the core's answer. When the raw path is
 * not under the prefix, the host rewrote the URL (`request.setUrl`) to reach
 * us: then hapi's path is the one that counts.
 */
function pathOf(request: Request, mount: Mount): string {
  return mount.below(targetPath(request.raw.req.url)) ?? mount.below(request.path) ?? '/';
}

export function toCoreRequest(request: Request, mount: Mount, basePath: string): PetStoreRequest {
  return {
    method: request.method.toUpperCase(),
    path: pathOf(request, mount),
    query: rawQuery(request.raw.req.url),
    headers: request.raw.req.headers,
    body: bodyOf(request),
    basePath,
  };
}
