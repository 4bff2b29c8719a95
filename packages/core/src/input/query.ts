import type { PetStatus } from '../schemas/schemas.js';
import { encodeCursor } from './cursor.js';

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

/** RFC 8288 `Link` to the next page, carrying the same `limit` and filter. */
export function nextLink(path: string, limit: number, lastId: number, status?: PetStatus): string {
  const query = `limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${encodeCursor(lastId)}`;
  return `<${path}?${query}>; rel="next"`;
}
