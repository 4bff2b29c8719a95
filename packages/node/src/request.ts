import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { PetStoreRequest, RequestBody, RequestHeaders } from '@petstore/core';
import { bodyReader } from './body-reader.js';

/** A request as node:http (or its HTTP/2 compatibility API) gives it; `body` is set when a parser ran upstream. */
export type NodeRequest = (IncomingMessage | Http2ServerRequest) & { readonly body?: unknown };

/** The body as the core should see it, whether or not a parser ran upstream. */
export function bodyOf(req: NodeRequest): RequestBody {
  // A client that went away before anybody read its body: reading the stream
  // fails, and the core ends the request quietly.
  const parsed = req.body;
  // Nobody read a byte (no parser ran, or the body is empty, which body-parser
  // calls `{}`): the core reads the stream itself and stops at its own limit.
  if (parsed === undefined || !req.readableDidRead) return bodyReader(req);
  if (typeof parsed === 'string' || parsed instanceof Uint8Array) return parsed;
  const length = Number(req.headers['content-length']);
  return { kind: 'parsed', value: parsed, byteLength: Number.isNaN(length) ? undefined : length };
}

/** Every value of a header as sent, in order (`rawHeaders` keeps the repetitions Node drops). */
function allValues(raw: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() === name) values.push(raw[i + 1] as string);
  }
  return values;
}

/**
 * `req.headers`, unless `Authorization` or `Content-Type` came more than once:
 * Node keeps only the first of each, which would let a request with two
 * credentials in on the first. Then a copy with the values joined by `, `, as a
 * fetch `Headers` joins them, so ambiguous credentials never authenticate and
 * two media types are never JSON, on any host.
 */
function joinedDuplicates(req: IncomingMessage): RequestHeaders {
  const raw = req.rawHeaders;
  let authorizations = 0;
  let contentTypes = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    // Names of another length cannot be these: they are not even lower-cased.
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorizations++;
    else if (name.length === 12 && name.toLowerCase() === 'content-type') contentTypes++;
  }
  if (authorizations < 2 && contentTypes < 2) return req.headers;
  const headers: Record<string, string | string[] | undefined> = { ...req.headers };
  if (authorizations > 1) headers.authorization = allValues(raw, 'authorization').join(', ');
  if (contentTypes > 1) headers['content-type'] = allValues(raw, 'content-type').join(', ');
  return headers;
}

/** Request headers without HTTP/2's pseudo-headers (`:path`, `:method`...): copied only for HTTP/2. */
export function headersOf(req: NodeRequest): RequestHeaders {
  if (req.httpVersionMajor < 2) return joinedDuplicates(req as IncomingMessage);
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
