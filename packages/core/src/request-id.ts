import { randomUUID } from 'node:crypto';
import type { RequestHeaders } from './http.js';

/** 1 to 128 visible ASCII characters: anything else could smuggle text into logs. */
const SANE = /^[\x21-\x7e]{1,128}$/;

/** The client's X-Request-Id when sane, else a fresh UUID. */
export function requestIdOf(headers: RequestHeaders): string {
  const sent = headers['x-request-id'];
  return typeof sent === 'string' && SANE.test(sent) ? sent : randomUUID();
}
