import { MAX_ID } from '../schemas/schemas.js';

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const CURSOR_TEXT = /^[A-Za-z0-9_-]+$/;
const ID_TEXT = /^[1-9]\d{0,15}$/;

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

/** The last id a cursor stands for, or undefined when this service did not issue it. */
export function decodeCursor(cursor: string): number | undefined {
  if (!CURSOR_TEXT.test(cursor)) return undefined;
  const digits = Buffer.from(cursor, 'base64url').toString('latin1');
  if (!ID_TEXT.test(digits)) return undefined;
  const id = Number(digits);
  // Only the canonical encoding is accepted, so one position has one cursor.
  return id <= MAX_ID && encodeCursor(id) === cursor ? id : undefined;
}
