import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiReferenceAnswer } from './answer.js';
import { type ApiReferenceOptions, createApiReference } from './api-reference.js';

/** Connect, Polka and Express set it, with `req.url` cut below their mount path. */
type MountedRequest = IncomingMessage & { readonly originalUrl?: string };

/** `(req, res, next?)`: a `node:http` request listener, or Connect / Polka / Express middleware. */
export type ApiReferenceListener = (
  req: MountedRequest,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => void;

/** The path of a request target as sent (an absolute-form target read by its path), no query. */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (path.startsWith('/')) return path;
  const scheme = path.indexOf('://');
  if (scheme === -1) return path;
  const slash = path.indexOf('/', scheme + 3);
  return slash === -1 ? '/' : path.slice(slash);
}

/** Status, headers and body exactly as given: no framework adds or changes anything. */
export function writeAnswer(res: ServerResponse, { status, headers, body }: ApiReferenceAnswer) {
  res.writeHead(status, headers);
  res.end(body);
}

const NOT_FOUND = Buffer.from(
  '{"code":"not_found","message":"Nothing is served at this path.","status":404}',
);

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
      res.writeHead(404, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(NOT_FOUND.byteLength),
      });
      res.end(NOT_FOUND);
    }
  };
}
