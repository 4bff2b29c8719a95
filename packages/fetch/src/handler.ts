import type { PetStore, PetStoreResponse, RequestBody } from '@petstore/core';
import { errorResponse } from '@petstore/core';
import { type BodyState, streamBody } from './stream-body.js';
import { splitUrl } from './url.js';

export interface PetStoreFetchOptions {
  /** Where the API is served, as it appears in the request URL. Default `/v1`. */
  readonly basePath?: string;
  /** The base path clients see, for `Location` and `Link`, when a proxy rewrites it. Default `basePath`. */
  readonly publicBasePath?: string;
}

/** A fetch-standard handler: Hono, Next.js route handlers, Bun, Deno, `@hono/node-server`. */
export type PetStoreFetchHandler = (request: Request) => Promise<Response>;

/** What a client that went away gets: nobody reads it; 499 is for logs only. */
const ABORTED_STATUS = 499;

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** Hosts give every POST or DELETE a stream, even an empty one: only a declared body can be left unread. */
const declaresBody = (headers: Headers): boolean =>
  headers.has('transfer-encoding') || (headers.get('content-length') ?? '0') !== '0';

function toFetchResponse(response: PetStoreResponse, body: BodyState | undefined): Response {
  const headers: Record<string, string> = { ...response.headers };
  const bytes = response.body === undefined ? null : new TextEncoder().encode(response.body);
  // A known length spares the client chunked framing.
  if (bytes !== null) headers['content-length'] = String(bytes.byteLength);
  // The core stopped reading the body (too large, or refused before it): what is
  // left on the connection is no next request, so it ends with this answer.
  if (body !== undefined && !body.ended) headers.connection = 'close';
  return new Response(bytes, { status: response.status, headers });
}

/**
 * `petStoreFetch(store, { basePath: '/v1' })`: the API under `basePath`, the
 * core's JSON 404 anywhere else. The full URL is read from the request, the
 * query string as sent (the core judges values undecoded).
 */
export function petStoreFetch(
  store: PetStore,
  options: PetStoreFetchOptions = {},
): PetStoreFetchHandler {
  const basePath = (options.basePath ?? '/v1').replace(/\/+$/, '');
  const publicBasePath = options.publicBasePath ?? basePath;
  return async (request) => {
    const { path, query } = splitUrl(request.url);
    if (path !== basePath && !path.startsWith(`${basePath}/`)) {
      const message = `No route for ${path}.`;
      return toFetchResponse(
        errorResponse({ kind: 'error', code: 'not_found', message }),
        undefined,
      );
    }
    const stream = request.body;
    const state: BodyState | undefined =
      stream === null ? undefined : { ended: !declaresBody(request.headers) };
    const body: RequestBody =
      stream === null || state === undefined ? undefined : streamBody(stream, state);
    const response = await store.handle({
      method: request.method,
      path: path.slice(basePath.length) || '/',
      query,
      headers: headersOf(request),
      body,
      basePath: publicBasePath,
    });
    if (response.aborted === true) return new Response(null, { status: ABORTED_STATUS });
    return toFetchResponse(response, state);
  };
}
