import type { PetStore, RequestBody } from '@petstore/core';
import { bodyFromParserError, bodyOf, originForm, respond, toCoreRequest } from '@petstore/node';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';

export interface PetStoreRouterOptions {
  /** The base path clients see, for `Location` and `Link`, when a proxy rewrites it. Default `req.baseUrl`. */
  readonly basePath?: (req: Request) => string;
  /** Called when a response could not be written; the client then got a plain 500 or a closed socket. */
  readonly onWriteError?: (error: unknown, req: Request) => void;
}

/**
 * A request handler and an error handler, to mount together:
 * `app.use('/v1', petStoreRouter(store))` (Express flattens the array). The
 * error handler is there because a body parser upstream (`express.json()`)
 * reports bad bodies as errors, and Express skips plain handlers while an
 * error is pending.
 */
export type PetStoreRouter = [RequestHandler, ErrorRequestHandler];

export function petStoreRouter(
  store: PetStore,
  options: PetStoreRouterOptions = {},
): PetStoreRouter {
  const { basePath = (req: Request) => req.baseUrl, onWriteError } = options;
  const answer = (req: Request, res: Response, body: RequestBody): void => {
    void respond(
      store,
      req,
      res,
      // Express cut the mount path off `req.url`; an absolute-form target keeps its origin there.
      () => toCoreRequest(req, originForm(req.url), basePath(req), body),
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
