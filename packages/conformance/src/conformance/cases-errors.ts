import type { PetStorage } from '@petstore/core';
import { StorageUnavailableError } from '@petstore/core';
import { expect } from 'vitest';
import { BASE, bearer, get, JSON_TYPE, postPet } from './helpers.js';
import type { ConformanceCase } from './types.js';

const notFound = (path: string): ConformanceCase => ({
  name: `routing: ${path} under the base is 404 not_found`,
  rule: 'Errors: not_found 404 also for unknown paths under the base',
  request: { method: 'GET', path, headers: bearer() },
  expect: { status: 404, code: 'not_found', headers: { 'content-type': JSON_TYPE } },
});

const notAllowed = (method: string, path: string, allow: string): ConformanceCase => ({
  name: `routing: ${method} ${path} is 405 with Allow: ${allow}`,
  rule: 'Errors: method_not_allowed 405 with Allow',
  request: { method, path: `${BASE}${path}`, headers: bearer() },
  expect: { status: 405, code: 'method_not_allowed', headers: { allow } },
});

/** A storage whose every call rejects with `error()`. */
const failing = (error: () => Error) => (): PetStorage => {
  const fail = async (): Promise<never> => {
    throw error();
  };
  return {
    createPet: fail,
    createPetIdempotent: fail,
    getPet: fail,
    listPets: fail,
    createOrder: fail,
    listOrders: fail,
    close: async () => {},
  };
};

/** Every storage call fails as an unreachable database would. */
const unreachable = failing(
  () => new StorageUnavailableError('connection refused', { retryAfterSeconds: 2 }),
);

const SECRET = 'relation "pets" does not exist at character 15 (SELECT * FROM pets)';
/** Every storage call fails with a bug. */
const broken = failing(() => new Error(SECRET));

const outage = (
  name: string,
  request: ReturnType<typeof get>,
  extra: Record<string, string> = {},
): ConformanceCase => ({
  name: `errors: ${name} while storage is unreachable is 503 with Retry-After`,
  rule: 'Errors: service_unavailable 503 with Retry-After (storage unreachable); never 201 unless stored',
  wrapStorage: unreachable,
  request,
  expect: {
    status: 503,
    code: 'service_unavailable',
    headers: { 'retry-after': '2', location: undefined, ...extra },
  },
});

const bug = (name: string, request: ReturnType<typeof get>): ConformanceCase => ({
  name: `errors: ${name} when storage fails unexpectedly is 500 internal_error without internals`,
  rule: 'Errors: internal_error 500; no stack trace, SQL or internal detail in any body',
  wrapStorage: broken,
  run: async ({ send }) => {
    const res = await send(request);
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toEqual({
      code: 'internal_error',
      message: expect.any(String),
      status: 500,
    });
    expect(res.body).not.toContain('relation');
    expect(res.body).not.toContain('SELECT');
    expect(res.body).not.toMatch(/\bat .+:\d+/);
  },
});

export const errorCases: ConformanceCase[] = [
  notFound(`${BASE}/nope`),
  notFound(`${BASE}/`),
  notFound(`${BASE}/pets/1/owner`),
  notFound(`${BASE}/pets/`),
  notFound(`${BASE}/store`),
  notFound(`${BASE}/PETS`),
  notAllowed('DELETE', '/pets', 'GET, POST'),
  notAllowed('PUT', '/pets', 'GET, POST'),
  notAllowed('PATCH', '/pets/1', 'GET'),
  notAllowed('DELETE', '/pets/1', 'GET'),
  notAllowed('POST', '/store/orders', 'GET'),
  notAllowed('POST', '/openapi.json', 'GET'),
  notAllowed('OPTIONS', '/pets', 'GET, POST'),
  outage('listPets', get('/pets')),
  outage('createPet', postPet({ name: 'Rex', categoryId: 1 })),
  outage(
    'createPet with an Idempotency-Key',
    postPet({ name: 'Rex', categoryId: 1 }, { 'idempotency-key': 'k1' }),
  ),
  outage('getPet', get('/pets/1'), { deprecation: '@1795305600' }),
  outage('listOrders', get('/store/orders')),
  bug('listPets', get('/pets')),
  bug('createPet', postPet({ name: 'Rex', categoryId: 1 })),
  bug('getPet', get('/pets/1')),
];
