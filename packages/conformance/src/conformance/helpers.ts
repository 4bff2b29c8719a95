import { DEFAULT_API_PATH, PET_STATUSES, type PetInput } from '@petstore/core';
import type { WireRequest } from '../wire.js';

export const API_KEY = 'conformance-key-0123';
export const SECOND_API_KEY = 'conformance-second-key';
export const BASE = DEFAULT_API_PATH;

export const bearer = (key = API_KEY) => ({ authorization: `Bearer ${key}` });

/** A request with the test key, unless `headers` says otherwise. */
export const get = (path: string, headers: Record<string, string> = bearer()): WireRequest => ({
  method: 'GET',
  path: `${BASE}${path}`,
  headers,
});

export const post = (
  path: string,
  body: string | Uint8Array | { chunks: Uint8Array[] },
  headers: Record<string, string> = {},
): WireRequest => ({
  method: 'POST',
  path: `${BASE}${path}`,
  headers: { ...bearer(), 'content-type': 'application/json', ...headers },
  body,
});

export const postPet = (pet: unknown, headers: Record<string, string> = {}): WireRequest =>
  post('/pets', JSON.stringify(pet), headers);

export const JSON_TYPE = 'application/json; charset=utf-8';

export const pets = (
  count: number,
  status: (i: number) => PetInput['status'] = () => 'available',
): PetInput[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `pet-${i + 1}`,
    categoryId: (i % 5) + 1,
    status: status(i),
  }));

export const cycleStatus = (i: number): PetInput['status'] =>
  PET_STATUSES[i % PET_STATUSES.length] ?? 'available';

/** `next` URL path from a Link header, or undefined. */
export function nextPath(link: string | undefined): string | undefined {
  return link === undefined ? undefined : /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
}
