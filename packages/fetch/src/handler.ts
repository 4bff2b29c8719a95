import {
  CLIENT_CLOSED_REQUEST,
  createMount,
  errorResponse,
  type Handler,
  type HandlerResponse,
  protocolRefusal,
  type RequestBody,
  requestIdOf,
} from '@petstore/core';
import { type BodyState, DRAIN_LIMIT, drainBody, streamBody } from './stream-body.js';
import { splitUrl } from './url.js';

export interface PetStoreFetchOptions {
  /** Where the API is served, as it appears in the request URL (`/v1`). Default `''`: every path. */
  readonly mountPath?: string | undefined;
  /** Where clients see the API, for `Location` and `Link`, when a proxy rewrites it. Default: the mount. */
  readonly publicPath?: string | undefined;
}

/** A fetch-standard handler: Hono, Next.js route handlers, Bun, Deno, `@hono/node-server`. */
export type PetStoreFetchHandler = (request: Request) => Promise<Response>;

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

/** Deno sends `Connection: close` itself after a body it was not given back whole: not twice. */
const RUNTIME_CLOSES_UNREAD = 'Deno' in globalThis;

/**
 * The core's answer as a `Response`. A body left unread is no next request, so the
 * connection ends with the answer (where the runtime does not say so itself).
 */
function toFetchResponse(response: HandlerResponse, body?: BodyState): Response {
  const headers: Record<string, string> = { ...response.headers };
  const bytes =
    typeof response.body === 'string'
      ? new TextEncoder().encode(response.body)
      : (response.body ?? null);
  // A known length spares the client chunked framing.
  if (bytes !== null) headers['content-length'] = String(bytes.byteLength);
  if (body !== undefined && !body.ended && !RUNTIME_CLOSES_UNREAD) headers.connection = 'close';
  return new Response(bytes, { status: response.status, headers });
}

/** A client that sent `Expect: 100-continue` and was not asked for its body: it sends none. */
const waitsForContinue = (headers: Record<string, string>, state: BodyState): boolean =>
  state.reader === undefined && headers.expect?.toLowerCase() === '100-continue';

/** Worth reading away: a body whose announced rest is small (or unannounced: chunked). */
const drainable = (headers: Headers): boolean =>
  Number(headers.get('content-length') ?? 0) <= DRAIN_LIMIT.bytes;

/**
 * `petStoreFetch(store, { mountPath: '/v1' })`: the API under `/v1`, a JSON
 * 404 anywhere else. The full URL is read from the request, the query string
 * as sent (the core judges values undecoded).
 */
export function petStoreFetch(
  store: Handler,
  options: PetStoreFetchOptions = {},
): PetStoreFetchHandler {
  const mount = createMount(options);
  const publicPath = mount.publicPathBelow('');
  return async (request) => {
    const headers = headersOf(request);
    // What a Node host's HTTP layer refuses and this runtime passed on: refused the same way.
    const refusal = protocolRefusal(request.method, headers);
    if (refusal !== undefined)
      return toFetchResponse(errorResponse(refusal, { 'x-request-id': requestIdOf(headers) }));
    const { path, query } = splitUrl(request.url);
    const below = mount.below(path);
    // Not an API answer (no request id); a new Response each time: bodies are read once.
    if (below === undefined) return toFetchResponse(mount.outside);
    // The stream is asked for only when the core reads it (see streamBody).
    const state: BodyState = { ended: !declaresBody(request.headers) };
    const body: RequestBody = streamBody(() => request.body, state);
    const response = await store.handle({
      method: request.method,
      path: below || '/',
      query,
      headers,
      body,
      publicPath,
    });
    if (response.aborted === true) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
    // Answered before the body's end: read the rest away (bounded) so the client sees the answer;
    // not a body the client holds back until `100 Continue`, which it was never sent.
    const stream = state.ended || waitsForContinue(headers, state) ? null : request.body;
    if (stream !== null && drainable(request.headers)) await drainBody(stream, state);
    return toFetchResponse(response, state);
  };
}
