import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { PetStoreError } from '../../src/index.js';

export interface SeenRequest {
  readonly at: number;
  readonly method: string;
  readonly url: string;
  readonly idempotencyKey: string | undefined;
  readonly authorization: string | undefined;
}

export interface StubServer {
  /** The base URL to give the client: `http://<host>:<port>/v1` (127.0.0.1 unless given). */
  readonly baseUrl: string;
  /** Every request that reached the server, in order. */
  readonly requests: SeenRequest[];
  /** Resolves once `count` requests have arrived. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that misbehaves as `handle` says (never answers, stalls a
 * body...), counting what reaches it. Its connections are cut on `close`.
 */
export async function stubServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  host = '127.0.0.1',
): Promise<StubServer> {
  const requests: SeenRequest[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  const server = createServer((request, response) => {
    const key = request.headers['idempotency-key'];
    requests.push({
      at: performance.now(),
      method: request.method ?? '',
      url: request.url ?? '',
      idempotencyKey: Array.isArray(key) ? key[0] : key,
      authorization: request.headers.authorization,
    });
    for (const waiter of waiting.filter((one) => requests.length >= one.count)) waiter.resolve();
    handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}/v1`,
    requests,
    received: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiting.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Accepts the request and never answers. */
export const neverAnswer = (): void => {};

/** Sends a 200's headers and the start of a JSON body, then nothing more. */
export const stallBody = (_request: IncomingMessage, response: ServerResponse): void => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.write('[{"id":1,');
};

/** `serve(handle)` for one test file: each stub server it starts is closed after its test. */
export function stubServersClosedAfterEach(): (
  handle: (request: IncomingMessage, response: ServerResponse) => void,
) => Promise<StubServer> {
  const servers: StubServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (handle) => {
    const server = await stubServer(handle);
    servers.push(server);
    return server;
  };
}

/** What a call rejected with. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject');
}

/** The PetStoreError a call threw (anything else is thrown on). */
export async function thrown(promise: Promise<unknown>): Promise<PetStoreError> {
  const error = await rejection(promise);
  if (error instanceof PetStoreError) return error;
  throw error;
}

/** The service's JSON 503, with `Retry-After` when given. */
export function unavailable(response: ServerResponse, retryAfter?: string): void {
  response.writeHead(503, {
    'content-type': 'application/json',
    'x-request-id': 'stub-503',
    ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
  });
  response.end(JSON.stringify({ code: 'service_unavailable', message: 'Try again later.' }));
}
