import { randomUUID } from 'node:crypto';

// The core's rule (1 to 128 visible ASCII characters), for the host routes the core does not
// serve; anything else could smuggle text into the logs.
const SANE = /^[\x21-\x7e]{1,128}$/;

/** The client's X-Request-Id when sane, else a fresh UUID. */
export function requestIdOf(sent: string | readonly string[] | undefined): string {
  return typeof sent === 'string' && SANE.test(sent) ? sent : randomUUID();
}
