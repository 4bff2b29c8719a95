import type { Readable } from 'node:stream';
import type { Request } from '@hapi/hapi';
import { belowMount, type PetStoreRequest, type RequestBody } from '@petstore/core';
import { bodyChunks, toCoreRequest as fromNode, originForm } from '@petstore/node';

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
  bodyChunks((request.payload as Readable | undefined) ?? request.raw.req);

/** The target below the prefix, read as a URL parser reads it, or undefined when it is not ours. */
const belowPrefix = (url: string, mount: Mount): string | undefined =>
  belowMount(originForm(url), mount.prefix);

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
function targetOf(request: Request, mount: Mount): string | undefined {
  const raw = request.raw.req.url ?? '/';
  const below = belowPrefix(raw, mount);
  if (below !== undefined) return below;
  if (
    belowMount(decodeUnreserved(originForm(raw)), mount.prefix, mount.caseSensitive) !== undefined
  ) {
    return undefined;
  }
  try {
    return belowMount(`${request.url.pathname}${request.url.search}`, mount.prefix);
  } catch {
    return undefined; // hapi could not make a URL of it (a bad Host header): not a rewrite
  }
}

/** The core's request, or undefined when the target is not the API's (see `targetOf`). */
export function toCoreRequest(request: Request, mount: Mount): PetStoreRequest | undefined {
  const target = targetOf(request, mount);
  if (target === undefined) return undefined;
  const core = fromNode(request.raw.req, target, mount.publicPath, bodyOf(request));
  // The method hapi routed (a host may have changed it with `request.setMethod`).
  const method = request.method.toUpperCase();
  return method === core.method ? core : { ...core, method };
}
