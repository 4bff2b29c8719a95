import { createHash } from 'node:crypto';

/** The listed API keys: checked once at start, kept as digests only. */

/** An accepted API key: the key alone, or with the id of whoever holds it. */
export type ApiKey = string | { readonly id: string; readonly key: string };

/** The shortest API key `apiKeys` takes, in characters. */
const MIN_KEY_LENGTH = 16;

export const digest = (value: string): Buffer =>
  createHash('sha256').update(value, 'utf8').digest();

export interface ListedKey {
  readonly digest: Buffer;
  /** The principal's scope, or undefined: then the token's digest is. */
  readonly scope: string | undefined;
}

export const scopeOf = (id: string): string => `id:${id}`;

export function listKeys(apiKeys: readonly ApiKey[]): ListedKey[] {
  if (apiKeys.length === 0) throw new TypeError('`apiKeys` must be a non-empty list');
  const seen = new Map<string, string | undefined>();
  return apiKeys.map((entry, index) => {
    const key = typeof entry === 'string' ? entry : entry?.key;
    const id = typeof entry === 'string' ? undefined : entry?.id;
    if (typeof key !== 'string' || key === '') {
      throw new TypeError(
        `\`apiKeys\` entry ${index + 1} must be a non-empty string or { id, key }`,
      );
    }
    if (typeof entry !== 'string' && (typeof id !== 'string' || id === '')) {
      throw new TypeError(`\`apiKeys\` entry ${index + 1} needs a non-empty string \`id\``);
    }
    // A short key can be guessed, or recovered from anything derived from it.
    if ([...key].length < MIN_KEY_LENGTH) {
      throw new TypeError(
        `\`apiKeys\` entry ${index + 1} is ${[...key].length} characters long; keys must have at least ${MIN_KEY_LENGTH} (a random one: node -e "console.log(crypto.randomBytes(24).toString('base64url'))")`,
      );
    }
    // One key for two principals would make its idempotency scope a guess.
    if (seen.has(key) && seen.get(key) !== id) {
      throw new TypeError(`\`apiKeys\` entry ${index + 1} repeats a key under another id`);
    }
    seen.set(key, id);
    return { digest: digest(key), scope: id === undefined ? undefined : scopeOf(id) };
  });
}
