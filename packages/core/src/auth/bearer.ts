import { type ApiError, apiError } from '../http/errors.js';
import { firstHeader } from '../http/header-values.js';
import type { RequestHeaders } from '../http/messages.js';

/** The Bearer scheme of RFC 6750: reading the token, and the 401 that asks for one. */

const REALM = 'Bearer realm="petstore"';

/** Only characters from `!` to `~` from `start` on: then there is nothing to trim or split. */
function isVisibleAscii(text: string, start: number): boolean {
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return false;
  }
  return true;
}

/** The bearer token, `undefined` when none was sent in the Bearer scheme. */
export function bearerToken(headers: RequestHeaders): string | undefined {
  const header = firstHeader(headers.authorization);
  if (header === undefined) return undefined;
  // The usual form, `Bearer <token>` with nothing to trim, without the regular expression.
  if (header.startsWith('Bearer ') && header.length > 7 && isVisibleAscii(header, 7)) {
    return header.slice(7);
  }
  const match = /^\s*(\S+)(?:\s+(.*))?$/.exec(header);
  if (match?.[1]?.toLowerCase() !== 'bearer') return undefined;
  const token = match[2]?.trim();
  return token === undefined || token === '' ? undefined : token;
}

export const unauthorized = (tokenSent: boolean): ApiError =>
  apiError(
    'unauthorized',
    tokenSent ? 'The API key is not valid.' : 'Send your API key as "Authorization: Bearer <key>".',
    { headers: { 'www-authenticate': tokenSent ? `${REALM}, error="invalid_token"` : REALM } },
  );
