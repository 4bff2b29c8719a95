import type { Readable } from 'node:stream';
import type { Request } from '@hapi/hapi';
import { belowMount, type PetStoreRequest, type RequestBody } from '@petstore/core';
import { toCoreRequest as fromNode, originForm } from '@petstore/node';

/** Where the plugin is mounted, and whether hapi's router folds case there. */
export interface Mount {
  readonly prefix: string;
  readonly caseSensitive: boolean;
  readonly publicPath: string;
}

/**
 * With `parse: false, output: 'stream'` hapi hands over the request stream
 * untouched (through its `peek` tap, if the host listens). GET and HEAD routes
 * and the onRequest fallback have no payload step: the raw stream, then.
 */
const bodyOf = (request: Request): RequestBody =>
  (request.payload as Readable | undefined) ?? request.raw.req;

/** The target below the prefix, as sent (path and query), or undefined when it is not ours. */
export const belowPrefix = (url: string, mount: Mount): string | undefined =>
  belowMount(originForm(url), mount.prefix, mount.caseSensitive);

/**
 * The target as the client sent it: hapi's `request.path` is normalised
 * (`/pets/%31` becomes `/pets/1`) and `request.params` are decoded (`%2F`
 * becomes `/`), so either would change the core's answer. Not
 * `request.url.search` either: hapi builds that URL from the Host header and
 * throws (a 500) when the header is not a valid host. When the raw target is
 * not under the prefix, the host rewrote the URL (`request.setUrl`) to reach
 * us: then hapi's path (and the raw query) is the one that counts.
 */
function targetOf(request: Request, mount: Mount): string {
  const raw = request.raw.req.url ?? '/';
  const below = belowPrefix(raw, mount);
  if (below !== undefined) return below;
  const queryAt = raw.indexOf('?');
  const query = queryAt === -1 ? '' : raw.slice(queryAt);
  return (belowMount(request.path, mount.prefix, mount.caseSensitive) ?? '/') + query;
}

export function toCoreRequest(request: Request, mount: Mount): PetStoreRequest {
  const core = fromNode(
    request.raw.req,
    targetOf(request, mount),
    mount.publicPath,
    bodyOf(request),
  );
  // The method hapi routed (a host may have changed it with `request.setMethod`).
  const method = request.method.toUpperCase();
  return method === core.method ? core : { ...core, method };
}
