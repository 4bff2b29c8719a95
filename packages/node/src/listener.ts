import { errorResponse, type PetStore } from '@petstore/core';
import { type NodeRequest, originForm, toCoreRequest } from './request.js';
import { abandon, type NodeResponse, writeResponse } from './response.js';

export interface PetStoreListenerOptions {
  /** Where the API is served (`/v1`); other paths are not ours. Default `''`: every path. */
  readonly basePath?: string;
  /** The base path clients see, for `Location` and `Link`, when a proxy rewrites it. Default `basePath`. */
  readonly publicPath?: string;
  /** Called when a response could not be written; the client then got a plain 500 or a closed socket. */
  readonly onWriteError?: (error: unknown, req: NodeRequest) => void;
}

/** Connect and Polka set it, with `req.url` cut below their mount path. */
type MountedRequest = NodeRequest & { readonly originalUrl?: string };

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

const WRITE_FAILED = errorResponse({
  kind: 'error',
  code: 'internal_error',
  message: 'The response could not be written.',
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
  const length = basePath.length;

  async function answer(req: NodeRequest, res: NodeResponse, target: string, base: string) {
    try {
      writeResponse(req, res, await store.handle(toCoreRequest(req, target, base)));
    } catch (error) {
      // A header the socket refuses, or a store that broke its promise never to reject.
      onWriteError?.(error, req);
      abandon(res, WRITE_FAILED);
    }
  }

  return (req, res, next) => {
    const url = originForm(req.url ?? '/');
    const after = url.charCodeAt(length); // what follows the base path: `/`, `?` or the end
    if (!url.startsWith(basePath) || !(url.length === length || after === 47 || after === 63)) {
      if (next !== undefined) next();
      else writeResponse(req, res, NOT_FOUND);
      return;
    }
    void answer(req, res, url.slice(length), publicPath ?? outerMount(req, url) + basePath);
  };
}
