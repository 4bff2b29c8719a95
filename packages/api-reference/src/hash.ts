import { createHash } from 'node:crypto';

/** The first 16 hex digits of the SHA-256 of `bytes`: names an asset and is its ETag. */
export const contentHash = (bytes: Uint8Array | string): string =>
  createHash('sha256').update(bytes).digest('hex').slice(0, 16);
