import { errorResponse, type PetStore } from '@petstore/core';
import { isUnderPath, type NodeRequest, originForm, toCoreRequest } from './request.js';
import { type NodeResponse, respond, writeResponse } from './response.js';

export interface PetStoreListenerOptions {
  /** Where the API is served (`/v1`); other paths are not ours. Default `''`: every path. */
  readonly basePath?: string;
  /** The base path clients see, for `Location` and `Link`, when a proxy rewrites it. Default `basePath`. */
  readonly publicPath?: string;
  /** Called when a response could not be written; the client then got a plain 500 or a closed socket. */
  readonly onWriteError?: (error: unknown, req: NodeRequest) => void;
}

/** Connect and Polka set it, with `req.url` cut below their mount path. */
type MountedRequest = NodeRequest & { readonly originalUrl?: string | undefined };

/** `(req, res, next?)`: a `node:http` / `node:http2` request listener, or Connect / Polka middleware. */
export type PetStoreListener = (
  req: MountedRequest,
  res: NodeResponse,
  next?: (error?: unknown) => void,
) => void;

const NOT_FOUND = errorResponse({
  kind: 'error',
  code: 'not_found',
  message: 'Nothing is served at this path.',
});

/** The path a mounting framework cut off `req.url` (`/tenant` for `/tenant/v1/pets`), or ''. */
function outerMount(req: MountedRequest, url: string): string {
  const original = req.originalUrl;
  if (original === undefined || original === url) return '';
  const query = original.indexOf('?');
  const path = originForm(query === -1 ? original : original.slice(0, query));
  const below = url.indexOf('?');
  return path.slice(0, path.length - (below === -1 ? url.length : below));
}

/**
 * `http.createServer(petStoreListener(store, { basePath: '/v1' }))` serves the
 * API under `/v1` and the core's JSON 404 elsewhere; as middleware (a third
 * `next` argument) it passes requests outside `/v1` on instead.
 */
export function petStoreListener(
  store: PetStore,
  options: PetStoreListenerOptions = {},
): PetStoreListener {
  const { basePath = '', publicPath, onWriteError } = options;
  if (basePath !== '' && !/^\/[^?#]*[^/?#]$/.test(basePath)) {
    throw new TypeError(`basePath must be '' or a path like /v1 (no trailing /); got ${basePath}`);
  }

  return (req, res, next) => {
    const url = originForm(req.url ?? '/');
    if (!isUnderPath(url, basePath)) {
      if (next !== undefined) next();
      else writeResponse(req, res, NOT_FOUND);
      return;
    }
    const base = publicPath ?? outerMount(req, url) + basePath;
    void respond(
      store,
      req,
      res,
      () => toCoreRequest(req, url.slice(basePath.length), base),
      onWriteError && ((error) => onWriteError(error, req)),
    );
  };
}
