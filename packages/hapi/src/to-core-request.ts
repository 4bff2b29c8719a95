import type { Readable } from 'node:stream';
import type { Request } from '@hapi/hapi';
import { type Mount, type PetStoreRequest, type RequestBody, readTarget } from '@petstore/core';
import { bodyReader, toCoreRequest as fromNode } from '@petstore/node';

/** Where the plugin is mounted (its prefix), and whether hapi's router folds case there. */
export interface PluginMount {
  readonly mount: Mount;
  readonly caseSensitive: boolean;
}

/**
 * With `parse: false, output: 'stream'` hapi hands over the request stream
 * untouched (through its `peek` tap, if the host listens). GET and HEAD routes
 * and the onRequest fallback have no payload step: the raw stream, then.
 */
const bodyOf = (request: Request): RequestBody =>
  bodyReader((request.payload as Readable | undefined) ?? request.raw.req);

/** Percent-escapes of unreserved characters decoded: the one spelling change hapi's router makes. */
const decodeUnreserved = (target: string): string =>
  target.replace(/%([0-9A-Fa-f]{2})/g, (sequence, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return /[A-Za-z0-9\-._~]/.test(char) ? char : sequence;
  });

/**
 * The target below the prefix, or undefined when the request is not the API's.
 * The raw target, read as a URL parser reads it, decides, as on every host:
 * hapi also routes `/%76%31/pets` (it decodes unreserved characters) and, with
 * `isCaseSensitive: false`, `/V1/pets` to the plugin; those are handed back.
 * When the raw target is another path altogether, the host rewrote the URL
 * (`request.setUrl`) to reach us: then hapi's URL is the one that counts.
 */
function targetOf(request: Request, { mount, caseSensitive }: PluginMount): string | undefined {
  const raw = request.raw.req.url ?? '/';
  const below = mount.below(raw);
  if (below !== undefined) return below;
  if (mount.below(decodeUnreserved(readTarget(raw)), caseSensitive) !== undefined) {
    return undefined;
  }
  try {
    return mount.below(`${request.url.pathname}${request.url.search}`);
  } catch {
    return undefined; // hapi could not make a URL of it (a bad Host header): not a rewrite
  }
}

/** The core's request, or undefined when the target is not the API's (see `targetOf`). */
export function toCoreRequest(request: Request, plugin: PluginMount): PetStoreRequest | undefined {
  const target = targetOf(request, plugin);
  if (target === undefined) return undefined;
  const publicPath = plugin.mount.publicPathBelow('');
  const core = fromNode(request.raw.req, target, publicPath, bodyOf(request));
  // The method hapi routed (a host may have changed it with `request.setMethod`).
  const method = request.method.toUpperCase();
  return method === core.method ? core : { ...core, method };
}
