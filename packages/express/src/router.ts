import { checkPath, type PetStore, type RequestBody, renamedOption } from '@petstore/core';
import { bodyFromParserError, bodyOf, originForm, respond, toCoreRequest } from '@petstore/node';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';

export interface PetStoreRouterOptions {
  /**
   * Where clients see the API, for `Location` and `Link`, when a proxy rewrites
   * it: a path, or a function of the request. Default: the mount (`req.baseUrl`).
   */
  readonly publicPath?: string | ((req: Request) => string) | undefined;
  /** @deprecated Renamed `publicPath`; read until the next minor version. */
  readonly basePath?: ((req: Request) => string) | undefined;
  /** Called when a response could not be written; the client then got a plain 500 or a closed socket. */
  readonly onWriteError?: ((error: unknown, req: Request) => void) | undefined;
}

/**
 * A request handler and an error handler, to mount together:
 * `app.use('/v1', petStoreRouter(store))` (Express flattens the array). The
 * error handler is there because a body parser upstream (`express.json()`)
 * reports bad bodies as errors, and Express skips plain handlers while an
 * error is pending.
 */
export type PetStoreRouter = [RequestHandler, ErrorRequestHandler];

/** The public path of a request: the option's (checked once, if a string), else the mount. */
function publicPathOf(options: PetStoreRouterOptions): (req: Request) => string {
  const given = renamedOption(
    'petStoreRouter',
    'basePath',
    'publicPath',
    options.basePath,
    options.publicPath,
  );
  if (given === undefined) return (req) => req.baseUrl;
  if (typeof given === 'function') return given;
  const path = checkPath(given, 'publicPath');
  return () => path;
}

export function petStoreRouter(
  store: PetStore,
  options: PetStoreRouterOptions = {},
): PetStoreRouter {
  const { onWriteError } = options;
  const publicPath = publicPathOf(options);
  const answer = (req: Request, res: Response, body: RequestBody): void => {
    void respond(
      store,
      req,
      res,
      // Express cut the mount path off `req.url`; an absolute-form target keeps its origin there.
      () => toCoreRequest(req, originForm(req.url), publicPath(req), body),
      onWriteError && ((error) => onWriteError(error, req)),
    );
  };

  const handle: RequestHandler = (req, res) => answer(req, res, bodyOf(req));
  const handleParserError: ErrorRequestHandler = (error, req, res, next) => {
    const body = bodyFromParserError(error, req);
    if (body === undefined) next(error);
    else answer(req, res, body);
  };
  return [handle, handleParserError];
}
