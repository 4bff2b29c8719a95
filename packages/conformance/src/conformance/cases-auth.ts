import { expect } from 'vitest';
import { API_KEY, BASE, bearer, get, JSON_TYPE, post, postPet, SECOND_API_KEY } from './helpers.js';
import type { ConformanceCase } from './types.js';

const REALM = 'Bearer realm="petstore"';
const INVALID = 'Bearer realm="petstore", error="invalid_token"';
const unauthorized = (challenge: string) =>
  ({
    status: 401,
    code: 'unauthorized',
    headers: { 'www-authenticate': challenge, 'content-type': JSON_TYPE },
  }) as const;

export const authCases: ConformanceCase[] = [
  {
    name: 'auth: no Authorization header is 401 with the Bearer challenge',
    rule: 'Authentication: no header answers 401 with WWW-Authenticate: Bearer realm="petstore"',
    request: get('/pets', {}),
    expect: unauthorized(REALM),
  },
  {
    name: 'auth: unknown token is 401 with error="invalid_token"',
    rule: 'Authentication: a token sent but rejected adds error="invalid_token" (RFC 6750)',
    request: get('/pets', { authorization: 'Bearer not-a-key' }),
    expect: unauthorized(INVALID),
  },
  {
    name: 'auth: another scheme (Basic) is 401 without error attribute',
    rule: 'Authentication: any other scheme answers 401',
    request: get('/pets', {
      authorization: `Basic ${Buffer.from(`user:${API_KEY}`).toString('base64')}`,
    }),
    expect: unauthorized(REALM),
  },
  {
    name: 'auth: the key without a scheme is 401',
    rule: 'Authentication: the key must be sent as a Bearer token',
    request: get('/pets', { authorization: API_KEY }),
    expect: unauthorized(REALM),
  },
  {
    name: 'auth: "Bearer" with an empty token is 401',
    rule: 'Authentication: no token is a missing key',
    request: get('/pets', { authorization: 'Bearer ' }),
    expect: unauthorized(REALM),
  },
  {
    name: 'auth: scheme name is case-insensitive (bearer)',
    rule: 'Authentication: the scheme name is case-insensitive',
    request: get('/pets', { authorization: `bearer ${API_KEY}` }),
    expect: { status: 200, body: [] },
  },
  {
    name: 'auth: scheme name is case-insensitive (BEARER)',
    rule: 'Authentication: the scheme name is case-insensitive',
    request: get('/pets', { authorization: `BEARER ${API_KEY}` }),
    expect: { status: 200, body: [] },
  },
  {
    name: 'auth: the token itself is case-sensitive',
    rule: 'Authentication: an unknown token answers 401',
    request: get('/pets', { authorization: `Bearer ${API_KEY.toUpperCase()}` }),
    expect: unauthorized(INVALID),
  },
  {
    name: 'auth: every configured key is accepted',
    rule: 'Authentication: the library takes a list of keys',
    request: get('/pets', bearer(SECOND_API_KEY)),
    expect: { status: 200, body: [] },
  },
  {
    name: 'auth: a verify(token) function accepts its tokens',
    rule: 'Authentication: the library takes a verify(token) function',
    options: { apiKeys: undefined, verify: async (token: string) => token === 'from-verify' },
    request: get('/pets', { authorization: 'Bearer from-verify' }),
    expect: { status: 200, body: [] },
  },
  {
    name: 'auth: a verify(token) function rejects other tokens',
    rule: 'Authentication: the library takes a verify(token) function',
    options: { apiKeys: undefined, verify: (token: string) => token === 'from-verify' },
    request: get('/pets', bearer()),
    expect: unauthorized(INVALID),
  },
  {
    name: 'auth: 401 comes before 404 on an unknown path',
    rule: 'Authentication runs before routing: no 404 before 401',
    request: get('/no-such-thing', {}),
    expect: unauthorized(REALM),
  },
  {
    name: 'auth: 401 comes before 405 on a wrong method',
    rule: 'Authentication runs before routing: no 405 before 401',
    request: { method: 'DELETE', path: `${BASE}/pets`, headers: {} },
    expect: {
      ...unauthorized(REALM),
      headers: { ...unauthorized(REALM).headers, allow: undefined },
    },
  },
  {
    name: 'auth: 401 comes before 400 on a bad limit',
    rule: 'Authentication runs before validation: no 400 before 401',
    request: get('/pets?limit=abc', {}),
    expect: unauthorized(REALM),
  },
  {
    name: 'auth: 401 comes before 400 on a bad pet id (and without deprecation headers)',
    rule: 'Authentication runs before validation: an unauthenticated request learns nothing',
    request: get('/pets/abc', {}),
    expect: {
      ...unauthorized(REALM),
      headers: { ...unauthorized(REALM).headers, deprecation: undefined },
    },
  },
  {
    name: 'auth: 401 comes before 415 on a POST',
    rule: 'Authentication runs before validation',
    request: post('/pets', '{}', { authorization: 'Bearer wrong', 'content-type': 'text/plain' }),
    expect: unauthorized(INVALID),
  },
  {
    name: 'auth: 401 comes before 413 on a POST',
    rule: 'Authentication runs before validation',
    request: post('/pets', JSON.stringify({ name: 'x'.repeat(20_000), categoryId: 1 }), {
      authorization: '',
    }),
    expect: unauthorized(REALM),
  },
  {
    name: 'auth: 401 on an unauthenticated POST creates nothing',
    rule: 'Authentication: every operation requires it',
    run: async ({ send }) => {
      const denied = await send(postPet({ name: 'Rex', categoryId: 1 }, { authorization: '' }));
      expect(denied.status).toBe(401);
      const list = await send(get('/pets'));
      expect(JSON.parse(list.body)).toEqual([]);
    },
  },
  {
    name: 'auth: GET /store/orders requires auth',
    rule: 'GET /store/orders: same auth rules as GET /pets',
    request: get('/store/orders', {}),
    expect: unauthorized(REALM),
  },
  {
    name: 'auth: the OpenAPI document is public',
    rule: 'The served OpenAPI document is the one public route',
    request: get('/openapi.json', {}),
    expect: { status: 200, headers: { 'content-type': JSON_TYPE } },
  },
  {
    name: 'auth: the OpenAPI route can be switched off (then it needs auth like any path)',
    rule: 'The served OpenAPI document can be switched off',
    options: { exposeOpenApi: false },
    request: get('/openapi.json', {}),
    expect: unauthorized(REALM),
  },
  {
    name: 'auth: the OpenAPI route switched off is 404 for a client with a key',
    rule: 'The served OpenAPI document can be switched off',
    options: { exposeOpenApi: false },
    request: get('/openapi.json'),
    expect: { status: 404, code: 'not_found' },
  },
];
