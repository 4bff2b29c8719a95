import {
  belowMount,
  checkPath,
  type PetStore,
  type RequestBody,
  renamedOption,
} from '@petstore/core';
import { bodyFromParserError, bodyOf, originForm, respond, toCoreRequest } from '@petstore/node';
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
function publicPathOf(options: PetStoreRouterOptions, mountPath: string): (req: Request) => string {
  const given = renamedOption(
    'petStoreRouter',
    'basePath',
    'publicPath',
    options.basePath,
    options.publicPath,
  );
  if (given === undefined) return (req) => req.baseUrl + mountPath;
  if (typeof given === 'function') return given;
  const path = checkPath(given, 'publicPath');
  return () => path;
}

export function petStoreRouter(
  store: PetStore,
  options: PetStoreRouterOptions = {},
): PetStoreRouter {
  const { onWriteError } = options;
  const mountPath = checkPath(options.mountPath ?? '', 'mountPath');
  const publicPath = publicPathOf(options, mountPath);
  // Express cut its own mount off `req.url`; an absolute-form target keeps its origin there.
  const targetBelow = (req: Request): string | undefined =>
    belowMount(originForm(req.url), mountPath);
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
