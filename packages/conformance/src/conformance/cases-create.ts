import { expect } from 'vitest';
import { BASE, bearer, get, JSON_TYPE, post, postPet } from './helpers.js';
import type { ConformanceCase, Expectation } from './types.js';

const MAX = Number.MAX_SAFE_INTEGER;
const anyId = expect.any(Number) as unknown as number;

const invalid = (...mentions: string[]): Expectation => ({
  status: 400,
  code: 'invalid_request',
  mentions,
  headers: { 'content-type': JSON_TYPE, location: undefined },
});

const badPet = (name: string, body: unknown, ...mentions: string[]): ConformanceCase => ({
  name: `createPet: ${name} is 400`,
  rule: 'NewPet: required fields, types and ranges; invalid input is 400 invalid_request naming the field',
  request: postPet(body),
  expect: invalid(...mentions),
});

const badText = (name: string, text: string, expectation: Expectation): ConformanceCase => ({
  name: `createPet: ${name}`,
  rule: 'POST /pets: malformed JSON, an empty body or a non-object body is 400',
  request: post('/pets', text),
  expect: expectation,
});

const malformed: Expectation = { status: 400, code: 'malformed_json' };

/** A valid NewPet padded with whitespace to exactly `size` bytes. */
const paddedBody = (size: number): string => {
  const json = JSON.stringify({ name: 'Padded', categoryId: 1 });
  return json.slice(0, -1) + ' '.repeat(size - json.length) + json.slice(-1);
};

export const createCases: ConformanceCase[] = [
  {
    name: 'createPet: 201 with the Animal and Location',
    rule: 'POST /pets: 201 carries the Animal and Location: <base>/pets/<id>',
    run: async ({ send }) => {
      const res = await send(postPet({ name: 'Rex', categoryId: 7, status: 'pending' }));
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe(JSON_TYPE);
      const pet = JSON.parse(res.body) as { id: number };
      expect(pet).toEqual({ id: anyId, name: 'Rex', categoryId: 7, status: 'pending' });
      expect(Number.isSafeInteger(pet.id) && pet.id > 0).toBe(true);
      expect(res.body).toBe(
        JSON.stringify({ id: pet.id, name: 'Rex', categoryId: 7, status: 'pending' }),
      );
      expect(res.headers.location).toBe(`${BASE}/pets/${pet.id}`);
    },
  },
  {
    name: 'createPet: status defaults to available',
    rule: 'NewPet: status omitted on create is available',
    request: postPet({ name: 'Rex', categoryId: 1 }),
    expect: { status: 201, body: { id: anyId, name: 'Rex', categoryId: 1, status: 'available' } },
  },
  {
    name: 'createPet: defaultStatus option changes the default',
    rule: 'NewPet: the default status is an option (defaultStatus)',
    options: { defaultStatus: 'pending' },
    request: postPet({ name: 'Rex', categoryId: 1 }),
    expect: { status: 201, body: { id: anyId, name: 'Rex', categoryId: 1, status: 'pending' } },
  },
  {
    name: 'createPet: each status value is accepted',
    rule: 'PetStatus: available | pending | sold',
    run: async ({ send }) => {
      for (const status of ['available', 'pending', 'sold']) {
        const res = await send(postPet({ name: status, categoryId: 1, status }));
        expect(res.status).toBe(201);
        expect(JSON.parse(res.body)).toMatchObject({ status });
      }
    },
  },
  {
    name: 'createPet: ids are positive, increasing, and each pet is readable at its Location',
    rule: 'Pet id: positive integer assigned by the service, increasing in creation order',
    run: async ({ send }) => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await send(postPet({ name: `p${i}`, categoryId: 1 }));
        expect(res.status).toBe(201);
        const { id } = JSON.parse(res.body) as { id: number };
        ids.push(id);
        const read = await send({
          method: 'GET',
          path: res.headers.location ?? '',
          headers: bearer(),
        });
        expect(read.status).toBe(200);
        expect(JSON.parse(read.body)).toEqual({
          id,
          name: `p${i}`,
          categoryId: 1,
          status: 'available',
        });
      }
      expect(ids.every((id, i) => id > 0 && (i === 0 || id > (ids[i - 1] ?? 0)))).toBe(true);
    },
  },
  {
    name: 'createPet: a 256-character name is accepted',
    rule: 'NewPet: name is a string of 1 to 256 characters',
    request: postPet({ name: 'n'.repeat(256), categoryId: 1 }),
    expect: {
      status: 201,
      body: { id: anyId, name: 'n'.repeat(256), categoryId: 1, status: 'available' },
    },
  },
  {
    name: 'createPet: unicode names round-trip exactly',
    rule: 'NewPet: name is any string of 1 to 256 characters',
    request: postPet({ name: 'Zoë 🐕 ñandú', categoryId: 1 }),
    expect: {
      status: 201,
      body: { id: anyId, name: 'Zoë 🐕 ñandú', categoryId: 1, status: 'available' },
    },
  },
  {
    name: 'createPet: categoryId 2^53 − 1 is accepted exactly',
    rule: 'NewPet: categoryId is an integer from 1 to 2^53 − 1',
    request: post('/pets', `{"name":"Big","categoryId":${MAX}}`),
    expect: { status: 201, body: { id: anyId, name: 'Big', categoryId: MAX, status: 'available' } },
  },
  badPet('a missing name', { categoryId: 1 }, 'name'),
  badPet('a missing categoryId', { name: 'Rex' }, 'categoryId'),
  badPet('an empty object', {}, 'name', 'categoryId'),
  badPet('an empty name', { name: '', categoryId: 1 }, 'name'),
  badPet('a 257-character name', { name: 'n'.repeat(257), categoryId: 1 }, 'name'),
  {
    name: 'createPet: 256 emoji (256 characters, 512 UTF-16 units) are accepted',
    rule: 'NewPet: name is a string of 1 to 256 characters',
    request: postPet({ name: '🐕'.repeat(256), categoryId: 1 }),
    expect: {
      status: 201,
      body: { id: anyId, name: '🐕'.repeat(256), categoryId: 1, status: 'available' },
    },
  },
  badPet('257 emoji', { name: '🐕'.repeat(257), categoryId: 1 }, 'name'),
  badPet('a name with a NUL character', { name: 'Re\u0000x', categoryId: 1 }, 'name'),
  badText(
    'a name with a lone surrogate is 400',
    '{"name":"Rex\\ud800","categoryId":1}',
    invalid('name'),
  ),
  badPet('a numeric name', { name: 42, categoryId: 1 }, 'name'),
  badPet('a null name', { name: null, categoryId: 1 }, 'name'),
  badPet('categoryId 0', { name: 'Rex', categoryId: 0 }, 'categoryId'),
  badPet('a negative categoryId', { name: 'Rex', categoryId: -1 }, 'categoryId'),
  badPet('a fractional categoryId', { name: 'Rex', categoryId: 1.5 }, 'categoryId'),
  badPet('a string categoryId', { name: 'Rex', categoryId: '5' }, 'categoryId'),
  badPet('categoryId 2^53', { name: 'Rex', categoryId: MAX + 1 }, 'categoryId'),
  badPet('an unknown status', { name: 'Rex', categoryId: 1, status: 'lost' }, 'status'),
  badPet('a status in the wrong case', { name: 'Rex', categoryId: 1, status: 'SOLD' }, 'status'),
  badPet('a null status', { name: 'Rex', categoryId: 1, status: null }, 'status'),
  badPet('an id in the body', { id: 5, name: 'Rex', categoryId: 1 }, 'id'),
  badPet('an unknown property', { name: 'Rex', categoryId: 1, colour: 'brown' }, 'colour'),
  badText(
    'categoryId past 2^53 written in digits is 400, never rounded',
    '{"name":"Rex","categoryId":9007199254740993}',
    invalid(),
  ),
  badText(
    'a fraction that rounds to an integer is 400, never rounded',
    '{"name":"Rex","categoryId":1.0000000000000001}',
    invalid(),
  ),
  badText('a huge exponent is 400', '{"name":"Rex","categoryId":1e400}', invalid()),
  badText('malformed JSON is 400 malformed_json', '{"name":"Rex",', malformed),
  badText('an empty body is 400 malformed_json', '', malformed),
  badText('a whitespace-only body is 400 malformed_json', '   ', malformed),
  badText('a JSON array is 400 invalid_request', '[{"name":"Rex","categoryId":1}]', invalid()),
  badText('a JSON string is 400 invalid_request', '"Rex"', invalid()),
  badText('JSON null is 400 invalid_request', 'null', invalid()),
  {
    name: 'createPet: invalid UTF-8 is 400 malformed_json',
    rule: 'POST /pets: malformed JSON is 400',
    request: post('/pets', new Uint8Array([0x7b, 0x22, 0x6e, 0xff, 0xfe, 0x22, 0x7d])),
    expect: malformed,
  },
  {
    name: 'createPet: a rejected body creates nothing',
    rule: 'POST /pets: no request is answered 201 unless the pet is stored (and none is stored on 400)',
    run: async ({ send }) => {
      expect((await send(postPet({ name: '', categoryId: 1 }))).status).toBe(400);
      expect((await send(post('/pets', '{'))).status).toBe(400);
      expect(JSON.parse((await send(get('/pets'))).body)).toEqual([]);
    },
  },
  {
    name: 'createPet: text/plain is 415',
    rule: 'POST /pets: Content-Type must be application/json, otherwise 415 unsupported_media_type',
    request: post('/pets', '{"name":"Rex","categoryId":1}', { 'content-type': 'text/plain' }),
    expect: { status: 415, code: 'unsupported_media_type' },
  },
  {
    name: 'createPet: no Content-Type is 415',
    rule: 'POST /pets: Content-Type must be application/json, otherwise 415 unsupported_media_type',
    request: {
      method: 'POST',
      path: `${BASE}/pets`,
      headers: bearer(),
      body: '{"name":"Rex","categoryId":1}',
    },
    expect: { status: 415, code: 'unsupported_media_type' },
  },
  {
    name: 'createPet: application/json-patch+json is 415',
    rule: 'POST /pets: Content-Type must be application/json',
    request: post('/pets', '{"name":"Rex","categoryId":1}', {
      'content-type': 'application/json-patch+json',
    }),
    expect: { status: 415, code: 'unsupported_media_type' },
  },
  {
    name: 'createPet: a compressed body (Content-Encoding: gzip) is 415',
    rule: 'POST /pets: Content-Type must be application/json (RFC 7694: unsupported content coding is 415)',
    request: post('/pets', new Uint8Array([0x1f, 0x8b, 0x08, 0x00]), {
      'content-encoding': 'gzip',
    }),
    expect: { status: 415, code: 'unsupported_media_type', mentions: ['gzip'] },
  },
  {
    name: 'createPet: Content-Encoding identity is fine',
    rule: 'POST /pets: Content-Type must be application/json',
    request: postPet({ name: 'Rex', categoryId: 1 }, { 'content-encoding': 'identity' }),
    expect: { status: 201 },
  },
  {
    name: 'createPet: a charset parameter is fine',
    rule: 'POST /pets: parameters such as charset are fine',
    request: postPet(
      { name: 'Rex', categoryId: 1 },
      { 'content-type': 'application/json; charset=utf-8' },
    ),
    expect: { status: 201 },
  },
  {
    name: 'createPet: the media type is case-insensitive',
    rule: 'POST /pets: Content-Type application/json (media types are case-insensitive)',
    request: postPet({ name: 'Rex', categoryId: 1 }, { 'content-type': 'Application/JSON' }),
    expect: { status: 201 },
  },
  {
    name: 'createPet: a body of exactly 16 KiB is accepted',
    rule: 'POST /pets: body size limit 16 KiB by default',
    request: post('/pets', paddedBody(16 * 1024)),
    expect: { status: 201 },
  },
  {
    name: 'createPet: a body of 16 KiB + 1 byte is 413',
    rule: 'POST /pets: over the limit, 413 payload_too_large',
    request: post('/pets', paddedBody(16 * 1024 + 1)),
    expect: { status: 413, code: 'payload_too_large' },
  },
  {
    name: 'createPet: an oversized chunked body (no Content-Length) is 413 and creates nothing',
    rule: 'POST /pets: 413 without buffering the rest of an oversized body',
    run: async ({ send }) => {
      const chunk = new TextEncoder().encode(' '.repeat(4096));
      const chunks = [
        new TextEncoder().encode('{"name":"Rex","categoryId":1'),
        ...Array(64).fill(chunk),
        new TextEncoder().encode('}'),
      ];
      const res = await send(post('/pets', { chunks }));
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
      expect(JSON.parse((await send(get('/pets'))).body)).toEqual([]);
    },
  },
  {
    name: 'createPet: a small chunked body is accepted',
    rule: 'POST /pets: bodies without Content-Length are read up to the limit',
    request: post('/pets', {
      chunks: [
        new TextEncoder().encode('{"name":"Rex",'),
        new TextEncoder().encode('"categoryId":1}'),
      ],
    }),
    expect: { status: 201, body: { id: anyId, name: 'Rex', categoryId: 1, status: 'available' } },
  },
  {
    name: 'createPet: maxBodyBytes option lowers the limit',
    rule: 'POST /pets: the body size limit is an option (maxBodyBytes)',
    options: { maxBodyBytes: 64 },
    request: postPet({ name: 'n'.repeat(80), categoryId: 1 }),
    expect: { status: 413, code: 'payload_too_large' },
  },
  {
    name: 'createPet: 415 is decided before the body is read (even an oversized one)',
    rule: 'POST /pets: Content-Type must be application/json',
    request: post('/pets', 'x'.repeat(20_000), { 'content-type': 'text/plain' }),
    expect: { status: 415, code: 'unsupported_media_type' },
  },
];
