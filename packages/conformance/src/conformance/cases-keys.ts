import type { PetStorage } from '@petstore/core';
import { expect } from 'vitest';
import type { WireRequest } from '../wire.js';
import { API_KEY, BASE, bearer, get, post, postPet, SECOND_API_KEY } from './helpers.js';
import type { ConformanceCase } from './types.js';

/**
 * Whether the storage holds a claim for `key` under `scope`: a probe with another body is
 * answered from the claim when there is one (never `created`). Asked of the storage itself,
 * so it holds wherever the store runs.
 */
async function hasClaim(storage: PetStorage, scope: string, key: string): Promise<boolean> {
  const probe = { name: 'probe', categoryId: 1, status: 'available' } as const;
  const claim = { scope, key, fingerprint: 'probe', retentionMs: 60_000 };
  return (await storage.createPetIdempotent(probe, claim)).kind !== 'created';
}

const keyStoreDown = new Error('key store down');

/** A verify that fails in `way`, and what every request then answers: 503, nothing about routes. */
function failingVerify(
  label: string,
  verify: (token: string) => boolean | Promise<boolean>,
  cause: (error: unknown) => void,
  extra: { verifyTimeoutMs?: number } = {},
): ConformanceCase {
  const requests: readonly WireRequest[] = [
    get('/pets'),
    get('/pets/abc'),
    get('/no-such-route'),
    { method: 'DELETE', path: `${BASE}/pets`, headers: bearer() },
    post('/pets', '[]'),
    post('/pets', '{}', { 'content-type': 'text/plain' }),
  ];
  return {
    name: `auth: a verify(token) that ${label} is 503 service_unavailable with Retry-After, before any route or input check`,
    rule: 'Authentication: a failing key check (throws, rejects, never settles) answers 503 with Retry-After; authentication still comes first',
    options: { apiKeys: undefined, verify, ...extra },
    recordHooks: true,
    run: async ({ send, events }) => {
      for (const request of requests) {
        const res = await send(request);
        expect(res.status, `${request.method} ${request.path}`).toBe(503);
        expect(JSON.parse(res.body)).toEqual({
          code: 'service_unavailable',
          message: 'The API key could not be checked right now; retry later.',
          status: 503,
        });
        expect(res.headers['retry-after']).toBe('1');
        for (const leak of ['allow', 'deprecation', 'sunset', 'link', 'location']) {
          expect(res.headers[leak], `${leak} on ${request.path}`).toBeUndefined();
        }
      }
      expect(events.errors).toHaveLength(requests.length);
      for (const event of events.errors) {
        expect(event.route).toBeUndefined();
        cause(event.error);
      }
      expect(events.responses.map((event) => [event.status, event.route])).toEqual(
        requests.map(() => [503, undefined]),
      );
    },
  };
}

export const keyCases: ConformanceCase[] = [
  failingVerify(
    'throws',
    () => {
      throw keyStoreDown;
    },
    (error) => expect(error).toEqual(keyStoreDown),
  ),
  failingVerify(
    'rejects',
    () => Promise.reject(keyStoreDown),
    (error) => expect(error).toEqual(keyStoreDown),
  ),
  failingVerify(
    'never settles',
    () => new Promise<boolean>(() => {}),
    (error) => expect(String(error)).toMatch(/did not settle within 50 ms/),
    { verifyTimeoutMs: 50 },
  ),
  {
    name: 'auth: a verify(token) that answers within verifyTimeoutMs is waited for',
    rule: 'Authentication: verifyTimeoutMs bounds verify; a slower but settling verify within it is fine',
    options: {
      apiKeys: undefined,
      verifyTimeoutMs: 5000,
      verify: (token) =>
        new Promise((resolve) => setTimeout(() => resolve(token === API_KEY), 100)),
    },
    request: get('/pets'),
    expect: { status: 200, body: [] },
  },
  {
    name: 'auth: a listed key still works while verify(token) is failing',
    rule: 'Authentication: listed keys are checked first; verify only for other tokens',
    options: {
      verify: () => {
        throw keyStoreDown;
      },
    },
    request: get('/pets'),
    expect: { status: 200, body: [] },
  },
  {
    name: 'auth: no token is 401 even while verify(token) is failing',
    rule: 'Authentication: no header answers 401',
    options: {
      apiKeys: undefined,
      verify: () => {
        throw keyStoreDown;
      },
    },
    request: get('/pets', {}),
    expect: { status: 401, code: 'unauthorized' },
  },
  {
    name: 'keys: an { id, key } entry scopes Idempotency-Keys by its id, and keys sharing an id share them',
    rule: 'Keys: apiKeys accepts { id, key }; the idempotency scope is the id, so no digest of a key is stored',
    options: {
      apiKeys: [
        { id: 'alice', key: API_KEY },
        { id: 'alice', key: SECOND_API_KEY },
        { id: 'bob', key: 'conformance-third-key' },
      ],
    },
    run: async ({ send, storage }) => {
      const pet = { name: 'Rex', categoryId: 1 };
      const first = await send(postPet(pet, { 'idempotency-key': 'rotate-1' }));
      expect(first.status).toBe(201);
      // The same holder with the rotated key: the same request, replayed.
      const rotated = await send(
        postPet(pet, { ...bearer(SECOND_API_KEY), 'idempotency-key': 'rotate-1' }),
      );
      expect(rotated.headers['idempotent-replayed']).toBe('true');
      expect(rotated.body).toBe(first.body);
      // Another holder's key of the same name is another request.
      const other = await send(
        postPet(pet, { ...bearer('conformance-third-key'), 'idempotency-key': 'rotate-1' }),
      );
      expect(other.status).toBe(201);
      expect(other.headers['idempotent-replayed']).toBeUndefined();
      expect(await hasClaim(storage, 'id:alice', 'rotate-1')).toBe(true);
      expect(await hasClaim(storage, 'id:bob', 'rotate-1')).toBe(true);
    },
  },
  {
    name: 'keys: a principal id from verify(token) scopes Idempotency-Keys',
    rule: 'Keys: verify may return a principal id; the idempotency scope is then that id',
    options: {
      apiKeys: undefined,
      verify: async (token) => (token.startsWith('carol-') ? 'carol' : false),
    },
    run: async ({ send, storage }) => {
      const pet = { name: 'Rex', categoryId: 1 };
      const first = await send(postPet(pet, { ...bearer('carol-old'), 'idempotency-key': 'p-1' }));
      const again = await send(postPet(pet, { ...bearer('carol-new'), 'idempotency-key': 'p-1' }));
      expect(first.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(await hasClaim(storage, 'id:carol', 'p-1')).toBe(true);
      expect((await send(get('/pets', bearer('mallory')))).status).toBe(401);
    },
  },
];
