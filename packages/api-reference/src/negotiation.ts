import type { Coding } from './manifest.js';

/** A request header as Node hands it over (repeated headers may come as a list). */
export type HeaderValue = string | readonly string[] | undefined;

export type Encoding = Coding | 'identity';

const joined = (value: HeaderValue): string | undefined =>
  typeof value === 'string' || value === undefined ? value : value.join(', ');

const Q_VALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Each coding's weight in an Accept-Encoding value; a malformed entry counts for nothing. */
function weights(header: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of header.split(',')) {
    const [name = '', ...params] = entry.split(';').map((part) => part.trim());
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value = ''] = param.split('=').map((part) => part.trim());
      if (key?.toLowerCase() !== 'q') continue;
      q = Q_VALUE.test(value) ? Number(value) : Number.NaN;
    }
    if (Number.isNaN(q)) continue;
    const coding = name.toLowerCase();
    // RFC 9110 §8.4.1.3: x-gzip is gzip.
    found.set(coding === 'x-gzip' ? 'gzip' : coding, q);
  }
  return found;
}

/**
 * The coding to answer in (RFC 9110 §12.5.3): the highest weight among those offered, ties going
 * to the earlier one in `offered` (br, then gzip, then identity). `q=0` excludes a coding, `*`
 * stands for every coding not named, and identity stays acceptable, as the last resort, unless
 * excluded. No header: identity. Undefined when nothing offered is acceptable (a 406).
 */
export function chooseEncoding(
  header: HeaderValue,
  offered: readonly Encoding[],
): Encoding | undefined {
  const value = joined(header);
  if (value === undefined) return offered.includes('identity') ? 'identity' : undefined;
  const weight = weights(value);
  const star = weight.get('*');
  let best: Encoding | undefined;
  let bestQ = 0;
  for (const coding of offered) {
    // An unnamed identity, not excluded by `*;q=0`, is acceptable below anything named.
    const q = weight.get(coding) ?? star ?? (coding === 'identity' ? Number.MIN_VALUE : 0);
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}

const ENTITY_TAG = /(?:W\/)?"([^"]*)"/g;

/**
 * If-None-Match (RFC 9110 §13.1.2) against our strong tag `"<opaque>"`: `*`, or any listed tag
 * with the same opaque part (the weak comparison the field calls for).
 */
export function noneMatch(header: HeaderValue, etag: string): boolean {
  const value = joined(header);
  if (value === undefined) return false;
  if (value.trim() === '*') return true;
  const opaque = etag.slice(1, -1);
  for (const [, tag] of value.matchAll(ENTITY_TAG)) {
    if (tag === opaque) return true;
  }
  return false;
}
