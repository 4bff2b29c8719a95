import { randomBytes } from 'node:crypto';
import type { RequestHeaders } from './messages.js';

/** 1 to 128 visible ASCII characters: anything else could smuggle text into logs. */
const SANE = /^[\x21-\x7e]{1,128}$/;

/**
 * Generated ids are UUIDs (RFC 9562 version 8, "custom"): 74 random bits
 * drawn once per 2^40 ids, then a counter. A request id must be unique, not
 * secret, and this costs a string concatenation instead of a random UUID's
 * formatting on every request: the counter's last two hex digits come from a
 * table, the other ten are formatted once per 256 ids.
 */
let prefix = '';
/** `prefix` and the counter's first ten hex digits. */
let head = '';
let counter = 0;
const COUNTER_SPAN = 2 ** 40;
const LAST_DIGITS: readonly string[] = Array.from({ length: 256 }, (_, byte) =>
  byte.toString(16).padStart(2, '0'),
);

function renewPrefix(): void {
  const hex = randomBytes(10).toString('hex');
  // xxxxxxxx-xxxx-8xxx-Vxxx-: version 8, variant 10 (the top two bits of V).
  const variant = ((Number.parseInt(hex[15] ?? '0', 16) & 0x3) | 0x8).toString(16);
  prefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(12, 15)}-${variant}${hex.slice(16, 19)}-`;
  counter = 0;
}

/** A fresh, unique UUID-shaped id. */
export function generateRequestId(): string {
  // `% 256`, not `& 0xff`: the counter passes 2^32.
  const last = counter % 256;
  if (last === 0) {
    if (prefix === '' || counter >= COUNTER_SPAN) renewPrefix();
    head = prefix + (counter / 256).toString(16).padStart(10, '0');
  }
  counter++;
  return head + (LAST_DIGITS[last] ?? '');
}

/** The client's X-Request-Id when sane, else a fresh id. */
export function requestIdOf(headers: RequestHeaders): string {
  const sent = headers['x-request-id'];
  return typeof sent === 'string' && SANE.test(sent) ? sent : generateRequestId();
}
