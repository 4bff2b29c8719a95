import { createMount, type Handler, type Mount, type RequestBody } from '@petstore/core';
import { bodyFromParserError, bodyOf, respond, toCoreRequest } from '@petstore/node';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';

export interface PetStoreRouterOptions {
  /**
   * Where the API is, below wherever the router is used: with it,
   * `app.use(petStoreRouter(store, { mountPath: '/v1' }))` serves `/v1` exactly as
   * every other host does (case-sensitively: `app.use('/v1', …)` also matches `/V1`),
   * and passes other paths on. Default `''`: everything the router is given.
   */
  readonly mountPath?: string | undefined;
  /**
   * Where clients see the API, for `Location` and `Link`, when a proxy rewrites
   * it: a path, or a function of the request. Default: the mount (`req.baseUrl`).
   */
  readonly publicPath?: string | ((req: Request) => string) | undefined;
  /** Called when a response could not be written; the client then got a plain 500 or a closed socket. */
  readonly onWriteError?: ((error: unknown, req: Request) => void) | undefined;
}

/**
 * A request handler and an error handler, to mount together:
 * `app.use(petStoreRouter(store, { mountPath: '/v1' }))` (Express flattens the array). The
 * error handler is there because a body parser upstream (`express.json()`)
 * reports bad bodies as errors, and Express skips plain handlers while an
 * error is pending.
 */
export type PetStoreRouter = [RequestHandler, ErrorRequestHandler];

/** The public path of a request: the option's (a function's is checked by the core), else the mount's. */
function publicPathOf(options: PetStoreRouterOptions, mount: Mount): (req: Request) => string {
  const given = options.publicPath;
  return typeof given === 'function' ? given : (req) => mount.publicPathBelow(req.baseUrl);
}

export function petStoreRouter(
  store: Handler,
  options: PetStoreRouterOptions = {},
): PetStoreRouter {
  const { onWriteError } = options;
  const { publicPath: given } = options;
  const mount = createMount({
    mountPath: options.mountPath,
    publicPath: typeof given === 'function' ? undefined : given,
  });
  const publicPath = publicPathOf(options, mount);
  // Express cut its own mount off `req.url`; an absolute-form target keeps its origin there.
  const targetBelow = (req: Request): string | undefined => mount.below(req.url);
  const answer = (req: Request, res: Response, target: string, body: RequestBody): void => {
    void respond(
      store,
      req,
      res,
      () => toCoreRequest(req, target, publicPath(req), body),
      onWriteError && ((error) => onWriteError(error, req)),
    );
  };

  const handle: RequestHandler = (req, res, next) => {
    const target = targetBelow(req);
    if (target === undefined) next();
    else answer(req, res, target, bodyOf(req));
  };
  const handleParserError: ErrorRequestHandler = (error, req, res, next) => {
    const target = targetBelow(req);
    const body = target === undefined ? undefined : bodyFromParserError(error, req);
    if (target === undefined || body === undefined) next(error);
    else answer(req, res, target, body);
  };
  return [handle, handleParserError];
}
