import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/** Connect-style middleware, as Connect and Polka call it. */
export type Middleware = (
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * What Connect's `app.use(path, fn)` does, in a few lines: each middleware in
 * turn, a mounted one seeing `req.url` below its path and `req.originalUrl`
 * unchanged; at the end, the host's own plain-text 404.
 */
export function chain(
  ...layers: ReadonlyArray<Middleware | [string, Middleware]>
): RequestListener {
  return (req, res) => {
    const mounted = req as IncomingMessage & { originalUrl?: string };
    const url = req.url ?? '/';
    mounted.originalUrl ??= url;
    let index = 0;
    const next = (error?: unknown): void => {
      mounted.url = url;
      const layer = layers[index++];
      if (error !== undefined || layer === undefined) {
        res.writeHead(error === undefined ? 404 : 500, { 'content-type': 'text/plain' });
        res.end(error === undefined ? 'host 404' : 'host 500');
        return;
      }
      if (typeof layer === 'function') {
        layer(mounted, res, next);
        return;
      }
      const [path, fn] = layer;
      if (url !== path && !url.startsWith(`${path}/`) && !url.startsWith(`${path}?`)) {
        next();
        return;
      }
      mounted.url = url.slice(path.length) || '/';
      fn(mounted, res, next);
    };
    next();
  };
}
