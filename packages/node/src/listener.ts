import { createMount, type Handler, readTarget } from '@petstore/core';
import { type NodeRequest, toCoreRequest } from './request.js';
import { type NodeResponse, respond, writeResponse } from './response.js';

export interface PetStoreListenerOptions {
  /** Where the API is served (`/v1`); other paths are not ours. Default `''`: every path. */
  readonly mountPath?: string | undefined;
  /** Where clients see the API, for `Location` and `Link`, when a proxy rewrites it. Default: the mount. */
  readonly publicPath?: string | undefined;
  /** Called when a response could not be written; the client then got a plain 500 or a closed socket. */
  readonly onWriteError?: ((error: unknown, req: NodeRequest) => void) | undefined;
}

/** Connect and Polka set it, with `req.url` cut below their mount path. */
type MountedRequest = NodeRequest & { readonly originalUrl?: string | undefined };

/** `(req, res, next?)`: a `node:http` / `node:http2` request listener, or Connect / Polka middleware. */
export type PetStoreListener = (
  req: MountedRequest,
  res: NodeResponse,
  next?: (error?: unknown) => void,
) => void;

/** The path a mounting framework cut off `req.url` (`/tenant` for `/tenant/v1/pets`), or ''. */
function outerMount(req: MountedRequest, url: string): string {
  const original = req.originalUrl;
  if (original === undefined || original === url) return '';
  const query = original.indexOf('?');
  const path = readTarget(query === -1 ? original : original.slice(0, query));
  const below = url.indexOf('?');
  return path.slice(0, path.length - (below === -1 ? url.length : below));
}

/**
 * `http.createServer(petStoreListener(store, { mountPath: '/v1' }))` serves the
 * API under `/v1` and the core's JSON 404 elsewhere; as middleware (a third
 * `next` argument) it passes requests outside `/v1` on instead.
 */
export function petStoreListener(
  store: Handler,
  options: PetStoreListenerOptions = {},
): PetStoreListener {
  const { onWriteError } = options;
  const mount = createMount(options);

  return (req, res, next) => {
    const url = readTarget(req.url ?? '/');
    const below = mount.below(url);
    if (below === undefined) {
      if (next !== undefined) next();
      else writeResponse(req, res, mount.outside);
      return;
    }
    const publicPath = mount.publicPathBelow(outerMount(req, url));
    void respond(
      store,
      req,
      res,
      () => toCoreRequest(req, below, publicPath),
      onWriteError && ((error) => onWriteError(error, req)),
    );
  };
}
