import * as v from 'valibot';
import type { ApiError } from './errors.js';
import { MAX_ID, type PetStatus, PetStatusSchema, RULES } from './schemas.js';
import { invalidValue } from './validation.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** What each query value must be (the parameter name goes in front). */
export const QUERY_RULES = {
  limit: `must be an integer from 1 to ${MAX_LIMIT}`,
  status: RULES.status,
  cursor: 'is not a cursor this service issued',
  once: 'must be given at most once',
  plain: 'must be sent as plain text, not percent-encoded',
} as const;

const LIMIT_TEXT = /^[1-9]\d{0,2}$/;

/** `limit` as text on the wire: a canonical decimal integer from 1 to 100. */
export const LimitParamSchema = v.pipe(
  v.string(),
  v.regex(LIMIT_TEXT, QUERY_RULES.limit),
  v.transform(Number),
  v.number(),
  v.integer(),
  v.minValue(1),
  v.maxValue(MAX_LIMIT, QUERY_RULES.limit),
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

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Opaque to clients; today the base64url (unpadded) of the last id's digits.
 * Encoded by hand: a Buffer round trip cost more than the rest of a page's Link.
 */
export function encodeCursor(lastId: number): string {
  const digits = String(lastId);
  let cursor = '';
  for (let i = 0; i < digits.length; i += 3) {
    const left = digits.length - i;
    const bits =
      (digits.charCodeAt(i) << 16) |
      (left > 1 ? digits.charCodeAt(i + 1) << 8 : 0) |
      (left > 2 ? digits.charCodeAt(i + 2) : 0);
    cursor += BASE64URL.charAt((bits >> 18) & 63) + BASE64URL.charAt((bits >> 12) & 63);
    if (left > 1) cursor += BASE64URL.charAt((bits >> 6) & 63);
    if (left > 2) cursor += BASE64URL.charAt(bits & 63);
  }
  return cursor;
}

export function decodeCursor(cursor: string): number | undefined {
  if (!v.is(CursorParamSchema, cursor)) return undefined;
  const id = v.safeParse(IdParamSchema, Buffer.from(cursor, 'base64url').toString('latin1'));
  // Only the canonical encoding is accepted, so one position has one cursor.
  return id.success && encodeCursor(id.output) === cursor ? id.output : undefined;
}

/** Query parameters by (decoded) name, each value as sent: still percent-encoded. */
export interface RawQuery {
  getAll(name: string): readonly string[];
}

const decodeName = (name: string): string => {
  if (!name.includes('%') && !name.includes('+')) return name;
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
};

/**
 * Parameters as name, value, name, value, ...: a query has a handful, and a
 * scan of those costs less than building a Map per request. A class, so a
 * request makes no closures for it.
 */
class ParsedQuery implements RawQuery {
  readonly #pairs: readonly string[];
  constructor(pairs: readonly string[]) {
    this.#pairs = pairs;
  }
  getAll(name: string): readonly string[] {
    let values: string[] | undefined;
    for (let i = 0; i < this.#pairs.length; i += 2) {
      if (this.#pairs[i] !== name) continue;
      const value = this.#pairs[i + 1] ?? '';
      if (values === undefined) values = [value];
      else values.push(value);
    }
    return values ?? NONE;
  }
}
const NONE: readonly string[] = Object.freeze([]);
const EMPTY_QUERY = new ParsedQuery([]);

/**
 * Splits a raw query string without decoding the values: `limit`, `status`
 * and `cursor` have one spelling each, and `limit=%31` is not it.
 */
export function parseRawQuery(text: string): RawQuery {
  if (text === '') return EMPTY_QUERY;
  const pairs: string[] = [];
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    pairs.push(
      decodeName(eq === -1 ? pair : pair.slice(0, eq)),
      eq === -1 ? '' : pair.slice(eq + 1),
    );
  }
  return new ParsedQuery(pairs);
}

const invalidParam = (name: string, rule: string): ApiError => invalidValue('query', name, rule);

/** Exactly one value, or absent; a repeated parameter is ambiguous and refused. */
function single(params: RawQuery, name: string): string | undefined | ApiError {
  const values = params.getAll(name);
  if (values.length > 1) return invalidParam(name, QUERY_RULES.once);
  const value = values[0];
  // None of our values has a character that needs escaping: an escape is another spelling.
  if (value?.includes('%') === true) return invalidParam(name, QUERY_RULES.plain);
  return value;
}

export interface PageParams {
  readonly limit: number;
  readonly afterId: number | undefined;
  /** The cursor exactly as received, or undefined. */
  readonly cursor: string | undefined;
}

export function parsePageParams(params: RawQuery): PageParams | ApiError {
  const limitText = single(params, 'limit');
  if (typeof limitText === 'object') return limitText;
  let limit = DEFAULT_LIMIT;
  if (limitText !== undefined) {
    // LimitParamSchema's rules (which the document shows), without valibot's pipeline per request.
    const parsed = LIMIT_TEXT.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(parsed <= MAX_LIMIT)) return invalidParam('limit', QUERY_RULES.limit);
    limit = parsed;
  }
  const cursor = single(params, 'cursor');
  if (typeof cursor === 'object') return cursor;
  const afterId = cursor === undefined ? undefined : decodeCursor(cursor);
  if (cursor !== undefined && afterId === undefined) {
    return invalidParam('cursor', QUERY_RULES.cursor);
  }
  return { limit, afterId, cursor };
}

export function parseStatusParam(params: RawQuery): PetStatus | undefined | ApiError {
  const status = single(params, 'status');
  if (status === undefined || typeof status === 'object') return status;
  const parsed = v.safeParse(PetStatusSchema, status);
  return parsed.success ? parsed.output : invalidParam('status', QUERY_RULES.status);
}

/** RFC 8288 `Link` to the next page, carrying the same `limit` and filter. */
export function nextLink(path: string, limit: number, lastId: number, status?: PetStatus): string {
  const query = `limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${encodeCursor(lastId)}`;
  return `<${path}?${query}>; rel="next"`;
}
