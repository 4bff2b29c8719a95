import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import {
  belowMount,
  type PetStoreRequest,
  type RequestBody,
  type RequestHeaders,
} from '@petstore/core';

/** A request as node:http (or its HTTP/2 compatibility API) gives it; `body` is set when a parser ran upstream. */
export type NodeRequest = (IncomingMessage | Http2ServerRequest) & { readonly body?: unknown };

/**
 * The request target in origin form: an absolute-form target
 * (`GET http://host/v1/pets HTTP/1.1`, as sent to proxies) loses its
 * `scheme://authority`. The one absolute-form rule of every Node adapter.
 */
export function originForm(url: string): string {
  if (url.charCodeAt(0) === 47 /* / */) return url;
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?]*/i, '') || '/';
}

/** The body as the core should see it, whether or not a parser ran upstream. */
export function bodyOf(req: NodeRequest): RequestBody {
  // A client that went away before anybody read its body: reading the stream
  // fails, and the core ends the request quietly.
  const parsed = req.body;
  // Nobody read a byte (no parser ran, or the body is empty, which body-parser
  // calls `{}`): the core reads the stream itself and stops at its own limit.
  if (parsed === undefined || !req.readableDidRead) return req;
  if (typeof parsed === 'string' || parsed instanceof Uint8Array) return parsed;
  const length = Number(req.headers['content-length']);
  return { kind: 'parsed', value: parsed, byteLength: Number.isNaN(length) ? undefined : length };
}

/** Request headers without HTTP/2's pseudo-headers (`:path`, `:method`...): copied only for HTTP/2. */
export function headersOf(req: NodeRequest): RequestHeaders {
  if (req.httpVersionMajor < 2) return req.headers;
  const headers: Record<string, string | string[] | undefined> = {};
  for (const name in req.headers) {
    if (name.charCodeAt(0) !== 58 /* : */) headers[name] = req.headers[name];
  }
  return headers;
}

/**
 * The core's request. `target` is the origin-form target below the mount
 * (`/pets/1?x=y`, or `` / `?x=y` for the mount itself), neither decoded;
 * `publicPath` is where clients see the API, for links.
 */
export function toCoreRequest(
  req: NodeRequest,
  target: string,
  publicPath: string,
  body: RequestBody = bodyOf(req),
): PetStoreRequest {
  const queryAt = target.indexOf('?');
  return {
    method: req.method ?? 'GET',
    path: (queryAt === -1 ? target : target.slice(0, queryAt)) || '/',
    query: queryAt === -1 ? '' : target.slice(queryAt + 1),
    headers: headersOf(req),
    body,
    publicPath,
  };
}

/** @deprecated Use `belowMount(target, mountPath) !== undefined` from `@petstore/core`; removed in the next minor version. */
export const isUnderPath = (target: string, mountPath: string): boolean =>
  belowMount(target, mountPath) !== undefined;
