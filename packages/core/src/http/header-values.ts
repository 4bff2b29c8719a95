import type { RequestHeaders } from './messages.js';

/** A header's value; the first, when a host gives several. */
export const firstHeader = (value: string | readonly string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : value?.[0];

/** `application/json` with any parameters (charset and the like), case-insensitive. */
export function isJsonContentType(headers: RequestHeaders): boolean {
  const value = firstHeader(headers['content-type']);
  // The usual spellings first, without splitting and copying.
  if (value === 'application/json' || value === 'application/json; charset=utf-8') return true;
  return value?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}
