import type { PetStorage } from '@petstore/core';
import { expect } from 'vitest';
import { get, postPet } from './helpers.js';
import type { ConformanceCase } from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The real storage, except that listing pets hits a bug. Delegates explicitly: storages may be class instances. */
const failingList = (storage: PetStorage): PetStorage => ({
  createPet: (input) => storage.createPet(input),
  createPetIdempotent: (input, claim) => storage.createPetIdempotent(input, claim),
  getPet: (id) => storage.getPet(id),
  listPets: async () => {
    throw new Error('disk on fire');
  },
  createOrder: (input) => storage.createOrder(input),
  listOrders: (query) => storage.listOrders(query),
  close: () => storage.close(),
});

export const operationCases: ConformanceCase[] = [
  {
    name: 'headers: every answer is nosniff; every answer but the public document is no-store',
    rule: 'Operational surface: X-Content-Type-Options: nosniff on every answer, Cache-Control: no-store on authenticated answers and errors',
    run: async ({ send }) => {
      const answers = [
        await send(get('/pets')),
        await send(postPet({ name: 'Rex', categoryId: 1 })),
        await send(get('/pets/1')),
        await send(get('/pets', {})),
        await send(get('/nope')),
        await send(get('/pets?limit=0')),
      ];
      for (const res of answers) {
        expect([res.status, res.headers['x-content-type-options']]).toEqual([
          res.status,
          'nosniff',
        ]);
        expect([res.status, res.headers['cache-control']]).toEqual([res.status, 'no-store']);
      }
      const document = await send(get('/openapi.json', {}));
      expect(document.headers['x-content-type-options']).toBe('nosniff');
      expect(document.headers['cache-control']).toBeUndefined();
    },
  },
  {
    name: 'request id: a sane client X-Request-Id is echoed',
    rule: 'Operational surface: every response carries X-Request-Id, the client’s own if sane',
    request: get('/pets', { ...get('/').headers, 'x-request-id': 'client-abc.123:x' }),
    expect: { status: 200, headers: { 'x-request-id': 'client-abc.123:x' } },
  },
  {
    name: 'request id: one is generated when the client sent none (errors too)',
    rule: 'Operational surface: every response carries X-Request-Id, else a generated one',
    request: get('/pets', {}),
    expect: { status: 401, headers: { 'x-request-id': UUID } },
  },
  {
    name: 'request id: an insane client id (spaces, too long) is replaced',
    rule: 'Operational surface: X-Request-Id is the client’s only if 1 to 128 visible ASCII characters',
    run: async ({ send }) => {
      const spaced = await send(get('/pets', { ...get('/').headers, 'x-request-id': 'has space' }));
      expect(spaced.headers['x-request-id']).toMatch(UUID);
      const long = await send(
        get('/pets', { ...get('/').headers, 'x-request-id': 'x'.repeat(129) }),
      );
      expect(long.headers['x-request-id']).toMatch(UUID);
      const max = await send(
        get('/pets', { ...get('/').headers, 'x-request-id': 'x'.repeat(128) }),
      );
      expect(max.headers['x-request-id']).toBe('x'.repeat(128));
    },
  },
  {
    name: 'hooks: onResponse sees method, route template, status, duration and request id',
    rule: 'Hooks: onResponse (method, route template, status, duration, request id)',
    recordHooks: true,
    run: async ({ send, events }) => {
      await send(get('/pets/12', { ...get('/').headers, 'x-request-id': 'r-1' }));
      await send(get('/nowhere', { ...get('/').headers, 'x-request-id': 'r-2' }));
      expect(events.responses).toEqual([
        {
          method: 'GET',
          route: '/pets/{petId}',
          operationId: 'getPet',
          status: 404,
          durationMs: expect.any(Number),
          requestId: 'r-1',
        },
        {
          method: 'GET',
          route: undefined,
          operationId: undefined,
          status: 404,
          durationMs: expect.any(Number),
          requestId: 'r-2',
        },
      ]);
      expect(events.responses.every((event) => event.durationMs >= 0)).toBe(true);
    },
  },
  {
    name: 'hooks: onDeprecatedCall is told of every getPet call, and of nothing else',
    rule: 'GET /pets/{petId}: a hook lets the host count or log calls to deprecated operations',
    recordHooks: true,
    run: async ({ send, events }) => {
      await send(get('/pets/1', { ...get('/').headers, 'x-request-id': 'dep-1' }));
      await send(get('/pets'));
      await send(get('/pets/1', {}));
      expect(events.deprecatedCalls).toEqual([
        {
          operationId: 'getPet',
          method: 'GET',
          route: '/pets/{petId}',
          requestId: 'dep-1',
          sunsetAt: new Date('2030-12-05T00:00:00Z'),
        },
      ]);
    },
  },
  {
    name: 'hooks: onError receives the unexpected error; the client sees only internal_error',
    rule: 'Hooks: onError (unexpected errors, with the error; the client sees only internal_error)',
    recordHooks: true,
    wrapStorage: failingList,
    run: async ({ send, events }) => {
      const res = await send(get('/pets', { ...get('/').headers, 'x-request-id': 'err-1' }));
      expect(res.status).toBe(500);
      expect(res.body).not.toContain('disk on fire');
      expect(events.errors).toHaveLength(1);
      expect(events.errors[0]).toMatchObject({ method: 'GET', route: '/pets', requestId: 'err-1' });
      expect(events.errors[0]?.error).toEqual(new Error('disk on fire'));
    },
  },
  {
    name: 'hooks: a throwing hook is reported to onError with its request',
    rule: 'Hooks: onError receives unexpected errors; the core keeps answering whatever a hook does',
    recordHooks: true,
    options: {
      hooks: {
        onDeprecatedCall: () => {
          throw new Error('counter broke');
        },
      },
    },
    run: async ({ send, events }) => {
      const res = await send(get('/pets/1', { ...get('/').headers, 'x-request-id': 'hook-1' }));
      expect(res.status).toBe(404);
      expect(events.errors).toEqual([
        {
          error: new Error('counter broke'),
          method: 'GET',
          route: '/pets/{petId}',
          requestId: 'hook-1',
        },
      ]);
    },
  },
  {
    name: 'hooks: a throwing onResponse hook does not change the answer',
    rule: 'Hooks: the core keeps answering whatever a hook does',
    options: {
      hooks: {
        onResponse: () => {
          throw new Error('logger broke');
        },
      },
    },
    request: postPet({ name: 'Rex', categoryId: 1 }),
    expect: { status: 201 },
  },
];
