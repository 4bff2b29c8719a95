import { type ApiReferenceOptions, createApiReference } from './api-reference.js';

/** A fetch-standard handler that answers its own paths only: undefined for any other request. */
export type ApiReferenceFetchHandler = (request: Request) => Response | undefined;

/**
 * `apiReferenceFetch({ publicPath: '/v1' })`: the page at `/docs` for Hono, Bun, Deno or
 * `@hono/node-server`; undefined for every other path, so it composes with `??`:
 * `(request) => docs(request) ?? api(request)`.
 */
export function apiReferenceFetch(options: ApiReferenceOptions = {}): ApiReferenceFetchHandler {
  const reference = createApiReference(options);
  return (request) => {
    const { headers } = request;
    const answer = reference(request.method, new URL(request.url).pathname, {
      'accept-encoding': headers.get('accept-encoding') ?? undefined,
      'if-none-match': headers.get('if-none-match') ?? undefined,
    });
    if (answer === undefined) return undefined;
    // A 304 or HEAD answer has no body, and a Response for a 304 must not be given one.
    const body = answer.body.byteLength === 0 ? null : answer.body;
    return new Response(body, { status: answer.status, headers: answer.headers });
  };
}

export type { ApiReferenceOptions } from './api-reference.js';
