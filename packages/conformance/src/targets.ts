import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMount, DEFAULT_API_PATH, type PetStore, type PetStoreRequest } from '@petstore/core';
import type { ConformanceTarget, WireRequest, WireResponse } from './wire.js';

const lowerCaseKeys = (headers: Readonly<Record<string, string>> = {}): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

async function* chunksOf(
  chunks: readonly Uint8Array[],
  hangUpAfter: PromiseLike<unknown> | undefined,
): AsyncIterable<Uint8Array> {
  yield* chunks;
  if (hangUpAfter === undefined) return;
  await hangUpAfter;
  // What a Node request stream does when its client goes away mid-body.
  throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
}

const NO_ANSWER: WireResponse = { status: 0, headers: {}, body: '' };

/** Calls `store.handle` directly, as an adapter mounted at `mountPath` would. */
export function coreTarget(store: PetStore, mountPath = DEFAULT_API_PATH): ConformanceTarget {
  const mount = createMount({ mountPath });
  return {
    async send(wire: WireRequest): Promise<WireResponse> {
      const below = mount.below(wire.path);
      if (below === undefined) {
        throw new Error(`coreTarget only serves ${mount.mountPath}; got ${wire.path}`);
      }
      const [path = '', query = ''] = below.split(/\?(.*)/s);
      const body = wire.body;
      const request: PetStoreRequest = {
        method: wire.method,
        path: path || '/',
        query,
        headers: lowerCaseKeys(wire.headers),
        publicPath: mount.publicPathBelow(''),
        body:
          body === undefined || typeof body === 'string' || body instanceof Uint8Array
            ? body
            : chunksOf(body.chunks, body.hangUpAfter),
      };
      const response = await store.handle(request);
      if (response.aborted === true) return NO_ANSWER;
      return {
        status: response.status,
        headers: { ...response.headers },
        body: response.body ?? '',
      };
    },
    async close() {},
  };
}

/** Sends a request over a real socket with node:http (chunked when `body.chunks` is given). */
export function sendHttp(origin: string, wire: WireRequest): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(wire.path, origin);
    const headers = lowerCaseKeys(wire.headers);
    const body = wire.body;
    if (typeof body === 'string' || body instanceof Uint8Array) {
      headers['content-length'] ??= String(
        typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
      );
    }
    let answered = false;
    let hungUp = false;
    const req = httpRequest(url, { method: wire.method, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: flat,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    // A server may answer (413) and close before the whole body is sent: that is not a client failure.
    req.on('error', (error) => {
      if (!answered && !hungUp) reject(error);
    });
    if (body === undefined) req.end();
    else if (typeof body === 'string' || body instanceof Uint8Array) req.end(body);
    else if (body.hangUpAfter === undefined) void writeChunks(req, body.chunks);
    else {
      req.on('close', () => {
        if (!answered) resolve(NO_ANSWER);
      });
      void hangUp(req, body.chunks, body.hangUpAfter, () => {
        hungUp = true;
      });
    }
  });
}

/** Sends the chunks (flushed to the socket), waits, then drops the connection mid-body. */
async function hangUp(
  req: import('node:http').ClientRequest,
  chunks: readonly Uint8Array[],
  after: PromiseLike<unknown>,
  hangingUp: () => void,
): Promise<void> {
  for (const chunk of chunks) {
    await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
  }
  await after;
  hangingUp();
  req.destroy();
}

async function writeChunks(
  req: import('node:http').ClientRequest,
  chunks: readonly Uint8Array[],
): Promise<void> {
  for (const chunk of chunks) {
    if (req.destroyed) return;
    if (!req.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          req.off('drain', done);
          req.off('close', done);
          resolve();
        };
        req.on('drain', done);
        req.on('close', done);
      });
    }
  }
  if (!req.destroyed) req.end();
}

/** A target for anything listening on HTTP at `origin` (`http://127.0.0.1:1234`). */
export const httpTarget = (origin: string, close: () => Promise<void>): ConformanceTarget => ({
  send: (wire) => sendHttp(origin, wire),
  close,
});

/** A target listening on a real socket: where, and the node:http server (to watch its sockets). */
export interface RunningServer extends ConformanceTarget {
  readonly origin: string;
  readonly server: Server;
}

/** Starts a node:http server (an Express app wrapped in `http.createServer`, say) on 127.0.0.1. */
export async function serveNodeServer(server: Server): Promise<RunningServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const target = httpTarget(origin, async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { ...target, origin, server };
}
