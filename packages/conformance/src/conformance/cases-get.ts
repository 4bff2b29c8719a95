import { expect } from 'vitest';
import { BASE, get, JSON_TYPE, pets } from './helpers.js';
import type { ConformanceCase } from './types.js';

// Defaults documented in the README: deprecated 2026-11-22, sunset 2030-12-05.
const DEPRECATION = {
  deprecation: '@1795305600',
  sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  link: `<${BASE}/pets>; rel="successor-version"`,
};

const badId = (id: string): ConformanceCase => ({
  name: `getPet: petId ${JSON.stringify(id)} is 400 with the deprecation headers`,
  rule: 'GET /pets/{petId}: petId must be a decimal integer from 1 to 2^53 − 1, else 400 invalid_request',
  request: get(`/pets/${id}`),
  expect: { status: 400, code: 'invalid_request', mentions: ['petId'], headers: DEPRECATION },
});

export const getCases: ConformanceCase[] = [
  {
    name: 'getPet: an existing pet is 200 with Deprecation, Sunset and successor Link',
    rule: 'GET /pets/{petId}: 200 Animal; every response carries Deprecation, Sunset and Link rel="successor-version"',
    seed: { pets: [{ name: 'Rex', categoryId: 9, status: 'sold' }] },
    run: async ({ send, storage }) => {
      const [pet] = await storage.listPets({ limit: 1 });
      const res = await send(get(`/pets/${pet?.id}`));
      expect(res.status).toBe(200);
      expect(res.body).toBe(
        JSON.stringify({ id: pet?.id, name: 'Rex', categoryId: 9, status: 'sold' }),
      );
      expect(res.headers).toMatchObject({ ...DEPRECATION, 'content-type': JSON_TYPE });
    },
  },
  {
    name: 'getPet: a well-formed id that does not exist is 404 with the deprecation headers',
    rule: 'GET /pets/{petId}: a well-formed id that does not exist is 404 not_found',
    seed: { pets: pets(1) },
    request: get('/pets/9007199254740991'),
    expect: { status: 404, code: 'not_found', headers: DEPRECATION },
  },
  ...['abc', '0', '-1', '1.5', '9007199254740992', '01', '1e3', '%31', '+1'].map(badId),
  {
    name: 'getPet: the deprecation date is an option',
    rule: 'GET /pets/{petId}: Deprecation date is an option with a documented default',
    options: { deprecation: { deprecatedAt: new Date('2027-01-01T00:00:00Z') } },
    request: get('/pets/1'),
    expect: { status: 404, headers: { ...DEPRECATION, deprecation: '@1798761600' } },
  },
];
