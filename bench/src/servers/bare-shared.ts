import { createHash, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { API_KEY, LIST_SEED_SIZE, seedPet } from '../fixtures.js';

/**
 * What a careful hand-written route does, shared by the bare Express and Hapi
 * servers: a constant-time key check over digests, `limit` validated as text, a
 * valibot schema for the new pet, and pets kept in a plain array. It is the
 * baseline our library is measured against, so it does the same work and no more.
 */

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const keyDigest = sha256(API_KEY);

export function isAuthorized(header: unknown): boolean {
  if (typeof header !== 'string') return false;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] !== undefined && timingSafeEqual(sha256(match[1]), keyDigest);
}

export const UNAUTHORIZED = {
  code: 'unauthorized',
  message: 'The API key is not valid.',
  status: 401,
};

/** `limit` as the contract says: a decimal integer 1..100, default 20; undefined when invalid. */
export function parseLimit(text: unknown): number | undefined {
  if (text === undefined) return 20;
  if (typeof text !== 'string' || !/^[1-9]\d{0,2}$/.test(text)) return undefined;
  const limit = Number(text);
  return limit <= 100 ? limit : undefined;
}

export const INVALID_LIMIT = {
  code: 'invalid_request',
  message: 'Invalid query parameter limit: must be an integer from 1 to 100.',
  status: 400,
};

export const NewPetSchema = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
  categoryId: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER)),
  status: v.optional(v.picklist(['available', 'pending', 'sold'])),
});

export interface BarePet {
  id: number;
  name: string;
  categoryId: number;
  status: 'available' | 'pending' | 'sold';
}

export function createBarePets(): BarePet[] {
  const pets: BarePet[] = [];
  for (let id = 1; id <= LIST_SEED_SIZE; id++) pets.push({ id, ...seedPet(id) });
  return pets;
}

/** The first page and its `Link: rel="next"` (the same cursor format ours uses), if more exist. */
export function firstPage(
  pets: readonly BarePet[],
  limit: number,
): { page: BarePet[]; link?: string } {
  const page = pets.slice(0, limit);
  const last = page.at(-1);
  if (pets.length <= limit || last === undefined) return { page };
  const cursor = Buffer.from(String(last.id)).toString('base64url');
  return { page, link: `</v1/pets?limit=${limit}&cursor=${cursor}>; rel="next"` };
}

export function invalidBody(issues: readonly v.BaseIssue<unknown>[]) {
  return {
    code: 'invalid_request',
    message: `Invalid pet: ${issues.map((issue) => issue.message).join('; ')}`,
    status: 400,
  };
}
