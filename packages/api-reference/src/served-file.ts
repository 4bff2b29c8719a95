import type { HandlerResponse } from '@petstore/core';
import { bodiless, COMMON_HEADERS, errorAnswer, type RequestHeaders } from './answer.js';
import { chooseEncoding, type Encoding, noneMatch } from './negotiation.js';

/** One file the page needs, in each coding it is stored in. */
export interface FileSpec {
  readonly contentType: string;
  readonly cacheControl: string;
  /** The content hash of the plain bytes: the ETag, with the coding appended for a variant. */
  readonly hash: string;
  /** The plain bytes first; then precompressed variants, in the order they are preferred. */
  readonly bodies: ReadonlyArray<readonly [Encoding, Uint8Array]>;
  /** Extra headers on its answers (the page's CSP). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Answers one file: every answer is built here, once, and only picked per request. */
export type ServedFile = (method: string, headers: RequestHeaders) => HandlerResponse;

interface Variant {
  readonly etag: string;
  readonly full: HandlerResponse;
  readonly head: HandlerResponse;
  readonly notModified: HandlerResponse;
}

const ALLOWED_METHODS = 'GET, HEAD';

const METHOD_NOT_ALLOWED = errorAnswer(
  405,
  'method_not_allowed',
  'Only GET and HEAD are allowed here.',
  { allow: ALLOWED_METHODS },
);

const NOT_ACCEPTABLE = errorAnswer(
  406,
  'not_acceptable',
  'No content coding offered here (br, gzip, identity) is acceptable to the client.',
);

export function servedFile(spec: FileSpec): ServedFile {
  const { contentType, cacheControl, hash, bodies } = spec;
  const varies = bodies.length > 1;
  const offered = bodies.map(([coding]) => coding);
  const variants = new Map<Encoding, Variant>();
  for (const [coding, body] of bodies) {
    // A strong tag names exact bytes, so each coding has its own.
    const etag = coding === 'identity' ? `"${hash}"` : `"${hash}-${coding}"`;
    const validators: Record<string, string> = {
      ...COMMON_HEADERS,
      ...spec.headers,
      'cache-control': cacheControl,
      etag,
      ...(varies ? { vary: 'accept-encoding' } : {}),
    };
    const headers: Record<string, string> = {
      ...validators,
      'content-type': contentType,
      ...(coding === 'identity' ? {} : { 'content-encoding': coding }),
    };
    variants.set(coding, {
      etag,
      // The adapter that writes a body gives its length; a HEAD says the length a GET would have.
      full: Object.freeze({ status: 200, headers: Object.freeze(headers), body }),
      head: bodiless(200, { ...headers, 'content-length': String(body.byteLength) }),
      notModified: bodiless(304, validators),
    });
  }

  return (method, headers) => {
    if (method !== 'GET' && method !== 'HEAD') return METHOD_NOT_ALLOWED;
    const coding = chooseEncoding(headers['accept-encoding'], offered);
    const variant = coding === undefined ? undefined : variants.get(coding);
    if (variant === undefined) return NOT_ACCEPTABLE;
    if (noneMatch(headers['if-none-match'], variant.etag)) return variant.notModified;
    return method === 'HEAD' ? variant.head : variant.full;
  };
}
