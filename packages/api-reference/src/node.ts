import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMount } from '@petstore/core';
import { type ApiReferenceOptions, createApiReference } from './api-reference.js';
import { pathOf, writeAnswer } from './write.js';

/** Connect, Polka and Express set it, with `req.url` cut below their mount path. */
type MountedRequest = IncomingMessage & { readonly originalUrl?: string };

/** `(req, res, next?)`: a `node:http` request listener, or Connect / Polka / Express middleware. */
export type ApiReferenceListener = (
  req: MountedRequest,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/** The pet store's answer outside the paths it serves: the same JSON 404 as every adapter's. */
const { outside } = createMount();
const NOT_FOUND = Buffer.from(outside.body ?? '');

/**
 * `http.createServer(apiReferenceListener())` serves the page at `/docs` and a JSON 404
 * elsewhere; as middleware (a third `next` argument) it passes every other path on. Paths are
 * matched in full (`req.originalUrl` when a framework cut `req.url`), so mount it anywhere.
 */
export function apiReferenceListener(options: ApiReferenceOptions = {}): ApiReferenceListener {
  const reference = createApiReference(options);
  return (req, res, next) => {
    const answer = reference(
      req.method ?? 'GET',
      pathOf(req.originalUrl ?? req.url ?? '/'),
      req.headers,
    );
    if (answer !== undefined) writeAnswer(res, answer);
    else if (next !== undefined) next();
    else {
      res.writeHead(outside.status, {
        ...outside.headers,
        'content-length': String(NOT_FOUND.byteLength),
      });
      res.end(NOT_FOUND);
    }
  };
}
