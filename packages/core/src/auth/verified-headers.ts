import { sha256 } from './sha256.js';

/**
 * Principals of Authorization headers that already matched a listed key, by
 * the header's SHA-256, never the header: looking a client's header up
 * compares digests, which tell nothing about a key's bytes, and no token is
 * kept. Only headers that matched go in, at most `limit` of them, so a stream
 * of bad tokens neither grows it nor learns anything from it.
 */
export class VerifiedHeaders<TPrincipal> {
  readonly #byDigest = new Map<string, TPrincipal>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * The header's digest, as 32 latin1 characters (the shortest Map key, the cheapest to look
   * up): what `get` and `remember` take.
   */
  static digest(header: string): string {
    return sha256(header, 'binary');
  }

  get(digest: string): TPrincipal | undefined {
    return this.#byDigest.get(digest);
  }

  remember(digest: string, principal: TPrincipal): void {
    if (this.#byDigest.size < this.#limit) this.#byDigest.set(digest, principal);
  }
}
