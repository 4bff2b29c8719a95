import * as v from 'valibot';
import { type ApiError, apiError } from './errors.js';
import { MAX_ID, type PetStatus, PetStatusSchema } from './schemas.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** `limit` as text on the wire: a canonical decimal integer from 1 to 100. */
export const LimitParamSchema = v.pipe(
  v.string(),
  v.regex(/^[1-9]\d{0,2}$/, `must be an integer from 1 to ${MAX_LIMIT}`),
  v.transform(Number),
  v.number(),
  v.integer(),
  v.minValue(1),
  v.maxValue(MAX_LIMIT, `must be an integer from 1 to ${MAX_LIMIT}`),
  v.metadata({ default: DEFAULT_LIMIT }),
  v.description('Maximum number of items returned.'),
);

/** An id as text in a path or cursor: a canonical decimal integer from 1 to 2^53 − 1. */
export const IdParamSchema = v.pipe(
  v.string(),
  v.regex(/^[1-9]\d{0,15}$/, `must be an integer from 1 to ${MAX_ID}`),
  v.transform(Number),
  v.number(),
  v.integer(),
  v.minValue(1),
  v.maxValue(MAX_ID, `must be an integer from 1 to ${MAX_ID}`),
  v.metadata({ format: 'int64' }),
);

export const CursorParamSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]+$/),
  v.description('Opaque position from the `Link: rel="next"` header of the previous page.'),
);

/** Opaque to clients; today the base64url of the last id seen. */
export const encodeCursor = (lastId: number): string =>
  Buffer.from(String(lastId)).toString('base64url');

export function decodeCursor(cursor: string): number | undefined {
  if (!v.is(CursorParamSchema, cursor)) return undefined;
  const id = v.safeParse(IdParamSchema, Buffer.from(cursor, 'base64url').toString('latin1'));
  // Only the canonical encoding is accepted, so one position has one cursor.
  return id.success && encodeCursor(id.output) === cursor ? id.output : undefined;
}

/** Exactly one value, or absent; a repeated parameter is ambiguous and refused. */
function single(params: URLSearchParams, name: string): string | undefined | ApiError {
  const values = params.getAll(name);
  if (values.length > 1) return invalidParam(name, `${name} must be given at most once`);
  return values[0];
}

const invalidParam = (name: string, message: string): ApiError =>
  apiError('invalid_request', `Invalid query parameter ${name}: ${message}.`, {
    details: [{ path: name, message }],
  });

export interface PageParams {
  readonly limit: number;
  readonly afterId: number | undefined;
  /** The cursor exactly as received, or undefined. */
  readonly cursor: string | undefined;
}

export function parsePageParams(params: URLSearchParams): PageParams | ApiError {
  const limitText = single(params, 'limit');
  if (typeof limitText === 'object') return limitText;
  let limit = DEFAULT_LIMIT;
  if (limitText !== undefined) {
    const parsed = v.safeParse(LimitParamSchema, limitText);
    if (!parsed.success) return invalidParam('limit', `must be an integer from 1 to ${MAX_LIMIT}`);
    limit = parsed.output;
  }
  const cursor = single(params, 'cursor');
  if (typeof cursor === 'object') return cursor;
  const afterId = cursor === undefined ? undefined : decodeCursor(cursor);
  if (cursor !== undefined && afterId === undefined) {
    return invalidParam('cursor', 'is not a cursor this service issued');
  }
  return { limit, afterId, cursor };
}

export function parseStatusParam(params: URLSearchParams): PetStatus | undefined | ApiError {
  const status = single(params, 'status');
  if (status === undefined || typeof status === 'object') return status;
  const parsed = v.safeParse(PetStatusSchema, status);
  return parsed.success
    ? parsed.output
    : invalidParam('status', 'must be one of available, pending, sold');
}

/** RFC 8288 `Link` to the next page, carrying the same `limit` and filter. */
export function nextLink(path: string, limit: number, lastId: number, status?: PetStatus): string {
  const query = `limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${encodeCursor(lastId)}`;
  return `<${path}?${query}>; rel="next"`;
}
