import * as crypto from 'node:crypto';

/**
 * SHA-256 of a text (UTF-8) in one call: `crypto.hash` skips the Hash object a request would
 * otherwise make and drop; a runtime without it (Node before 20.12) takes `createHash`.
 */
export const sha256: (text: string, encoding: 'binary' | 'base64url') => string =
  typeof crypto.hash === 'function'
    ? (text, encoding) => crypto.hash('sha256', text, encoding)
    : (text, encoding) => crypto.createHash('sha256').update(text, 'utf8').digest(encoding);
