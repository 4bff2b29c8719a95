import * as crypto from 'node:crypto';

/**
 * SHA-256 of a header, as 32 latin1 characters: the shortest Map key, the cheapest to look up.
 * `crypto.hash` (Node >= 20.12) skips the Hash object; Node 20.11 takes createHash.
 */
const sha256: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'binary')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('binary');

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

  /** The header's digest: what `get` and `remember` take. */
  static digest(header: string): string {
    return sha256(header);
  }

  get(digest: string): TPrincipal | undefined {
    return this.#byDigest.get(digest);
  }

  remember(digest: string, principal: TPrincipal): void {
    if (this.#byDigest.size < this.#limit) this.#byDigest.set(digest, principal);
  }
}
