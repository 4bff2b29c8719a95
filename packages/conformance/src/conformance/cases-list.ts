import { expect } from 'vitest';
import { BASE, cycleStatus, get, JSON_TYPE, nextPath, pets, postPet } from './helpers.js';
import type { CaseContext, ConformanceCase } from './types.js';

interface Page {
  readonly items: { id: number; status?: string }[];
  readonly next: string | undefined;
}

async function fetchPage(send: CaseContext['send'], path: string): Promise<Page> {
  const res = await send({ method: 'GET', path, headers: get('/').headers ?? {} });
  expect(res.status).toBe(200);
  return { items: JSON.parse(res.body) as Page['items'], next: nextPath(res.headers.link) };
}

const badLimit = (value: string): ConformanceCase => ({
  name: `listPets: limit=${JSON.stringify(value)} is 400 naming limit`,
  rule: 'GET /pets: limit is a decimal integer 1..100; anything else is 400 invalid_request naming limit',
  request: get(`/pets?limit=${value}`),
  expect: { status: 400, code: 'invalid_request', mentions: ['limit'] },
});

const badStatus = (query: string): ConformanceCase => ({
  name: `listPets: ${query} is 400 naming status`,
  rule: 'GET /pets: status is one of the three values; anything else (including empty) is 400',
  request: get(`/pets?${query}`),
  expect: { status: 400, code: 'invalid_request', mentions: ['status'] },
});

const ids = (items: readonly { id: number }[]) => items.map((item) => item.id);

export const listCases: ConformanceCase[] = [
  {
    name: 'listPets: an empty store is an empty array without Link',
    rule: 'GET /pets: 200 Pets; the last page has no rel="next"',
    request: get('/pets'),
    expect: {
      status: 200,
      body: [],
      bodyText: '[]',
      headers: { link: undefined, 'content-type': JSON_TYPE },
    },
  },
  {
    name: 'listPets: default limit is 20 and the Link carries limit=20',
    rule: 'GET /pets: limit default 20; Link rel="next" carries the same limit',
    seed: { pets: pets(25) },
    run: async ({ send }) => {
      const res = await send(get('/pets'));
      expect(res.status).toBe(200);
      const items = JSON.parse(res.body) as { id: number }[];
      expect(items).toHaveLength(20);
      expect(res.headers.link).toMatch(
        new RegExp(`^<${BASE}/pets\\?limit=20&cursor=[A-Za-z0-9_-]+>; rel="next"$`),
      );
    },
  },
  {
    name: 'listPets: items are exactly id, name, categoryId, status in that order, ascending by id',
    rule: 'Pets: response objects have exactly id, name, categoryId, status, in that order; order ascending id',
    seed: {
      pets: [
        { name: 'A', categoryId: 3, status: 'sold' },
        { name: 'B', categoryId: 4, status: 'pending' },
      ],
    },
    run: async ({ send }) => {
      const res = await send(get('/pets'));
      const items = JSON.parse(res.body) as { id: number; name: string }[];
      expect(items.map((item) => item.name)).toEqual(['A', 'B']);
      const [a, b] = items;
      expect(res.body).toBe(
        JSON.stringify([
          { id: a?.id, name: 'A', categoryId: 3, status: 'sold' },
          { id: b?.id, name: 'B', categoryId: 4, status: 'pending' },
        ]),
      );
      expect((a?.id ?? 0) < (b?.id ?? 0)).toBe(true);
    },
  },
  {
    name: 'listPets: limit=1 and limit=100 are accepted',
    rule: 'GET /pets: limit minimum 1, maximum 100',
    seed: { pets: pets(101) },
    run: async ({ send }) => {
      expect(JSON.parse((await send(get('/pets?limit=1'))).body)).toHaveLength(1);
      const full = await send(get('/pets?limit=100'));
      expect(JSON.parse(full.body)).toHaveLength(100);
      expect(full.headers.link).toMatch(/limit=100&cursor=/);
    },
  },
  ...['0', '101', 'abc', '1.5', '-5', '', '1e1', '05', '%205', '1000000000000000000000'].map(
    badLimit,
  ),
  {
    name: 'listPets: a repeated limit is 400 naming limit',
    rule: 'GET /pets: a repeated limit is 400 invalid_request',
    request: get('/pets?limit=5&limit=5'),
    expect: { status: 400, code: 'invalid_request', mentions: ['limit'] },
  },
  {
    name: 'listPets: the status filter returns only that status, ascending',
    rule: 'GET /pets: status returns only animals with this status',
    seed: { pets: pets(12, cycleStatus) },
    run: async ({ send }) => {
      for (const status of ['available', 'pending', 'sold']) {
        const items = JSON.parse((await send(get(`/pets?status=${status}`))).body) as {
          id: number;
          status: string;
        }[];
        expect(items).toHaveLength(4);
        expect(items.every((item) => item.status === status)).toBe(true);
        expect(ids(items)).toEqual([...ids(items)].sort((x, y) => x - y));
      }
    },
  },
  badStatus('status='),
  badStatus('status=lost'),
  badStatus('status=SOLD'),
  badStatus('status=sold&status=pending'),
  {
    name: 'listPets: unknown query parameters are ignored',
    rule: 'GET /pets: unknown query parameters are ignored',
    seed: { pets: pets(2) },
    request: get('/pets?colour=brown&page=3'),
    expect: {
      status: 200,
      body: [
        expect.objectContaining({ name: 'pet-1' }),
        expect.objectContaining({ name: 'pet-2' }),
      ],
    },
  },
  {
    name: 'listPets: following rel="next" visits every pet once, and the last page has no Link',
    rule: 'GET /pets: keyset pagination with RFC 8288 Link rel="next"; last page without it',
    seed: { pets: pets(7) },
    run: async ({ send }) => {
      const seen: number[] = [];
      const sizes: number[] = [];
      let path: string | undefined = `${BASE}/pets?limit=3`;
      for (let guard = 0; path !== undefined && guard < 10; guard++) {
        const page: Page = await fetchPage(send, path);
        expect(path).toMatch(/limit=3/);
        sizes.push(page.items.length);
        seen.push(...ids(page.items));
        path = page.next;
      }
      expect(sizes).toEqual([3, 3, 1]);
      expect(new Set(seen).size).toBe(7);
      expect(seen).toEqual([...seen].sort((x, y) => x - y));
    },
  },
  {
    name: 'listPets: a page that ends exactly at the last pet has no Link',
    rule: 'GET /pets: the service reads one row more than limit to know whether more exist',
    seed: { pets: pets(6) },
    run: async ({ send }) => {
      const first = await fetchPage(send, `${BASE}/pets?limit=3`);
      expect(first.next).toBeDefined();
      const second = await fetchPage(send, first.next ?? '');
      expect(second.items).toHaveLength(3);
      expect(second.next).toBeUndefined();
    },
  },
  {
    name: 'listPets: the next link carries the status filter',
    rule: 'GET /pets: Link rel="next" carries the same limit and status',
    seed: { pets: pets(15, cycleStatus) },
    run: async ({ send }) => {
      const first = await fetchPage(send, `${BASE}/pets?status=sold&limit=2`);
      expect(first.next).toMatch(
        new RegExp(`^${BASE}/pets\\?limit=2&status=sold&cursor=[A-Za-z0-9_-]+$`),
      );
      const seen = [...first.items];
      for (let path = first.next, guard = 0; path !== undefined && guard < 10; guard++) {
        const page = await fetchPage(send, path);
        seen.push(...page.items);
        path = page.next;
      }
      expect(seen).toHaveLength(5);
      expect(seen.every((pet) => pet.status === 'sold')).toBe(true);
    },
  },
  {
    name: 'listPets: pets created while paging are never seen twice and none that existed is skipped',
    rule: 'GET /pets: creating pets while a client pages never makes it see a pet twice or skip one',
    seed: { pets: pets(9) },
    run: async ({ send }) => {
      const before = ids((await fetchPage(send, `${BASE}/pets?limit=100`)).items);
      const seen: number[] = [];
      let path: string | undefined = `${BASE}/pets?limit=2`;
      for (let guard = 0; path !== undefined && guard < 20; guard++) {
        const page: Page = await fetchPage(send, path);
        seen.push(...ids(page.items));
        expect((await send(postPet({ name: `during-${guard}`, categoryId: 1 }))).status).toBe(201);
        path = page.next;
      }
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of before) expect(seen).toContain(id);
    },
  },
  {
    name: 'listPets: a cursor that does not decode is 400 naming cursor',
    rule: 'GET /pets: a cursor that does not decode is 400 invalid_request',
    request: get('/pets?cursor=!!not-a-cursor!!'),
    expect: { status: 400, code: 'invalid_request', mentions: ['cursor'] },
  },
  {
    name: 'listPets: a base64url cursor that is not ours is 400',
    rule: 'GET /pets: a cursor that does not decode is 400 invalid_request',
    request: get(`/pets?cursor=${Buffer.from('{"offset":10}').toString('base64url')}`),
    expect: { status: 400, code: 'invalid_request', mentions: ['cursor'] },
  },
  {
    name: 'listPets: an empty cursor is 400',
    rule: 'GET /pets: a cursor that does not decode is 400 invalid_request',
    request: get('/pets?cursor='),
    expect: { status: 400, code: 'invalid_request', mentions: ['cursor'] },
  },
  {
    name: 'listPets: a repeated cursor is 400',
    rule: 'GET /pets: the cursor is one opaque value',
    seed: { pets: pets(3) },
    run: async ({ send }) => {
      const first = await fetchPage(send, `${BASE}/pets?limit=1`);
      const cursor = new URL(first.next ?? '', 'http://x').searchParams.get('cursor') ?? '';
      const res = await send(get(`/pets?cursor=${cursor}&cursor=${cursor}`));
      expect(res.status).toBe(400);
      expect(res.body).toMatch(/cursor/);
    },
  },
  {
    name: 'listPets: a cursor past the last pet is an empty last page',
    rule: 'GET /pets: keyset pagination',
    seed: { pets: pets(2) },
    run: async ({ send }) => {
      const first = await fetchPage(send, `${BASE}/pets?limit=1`);
      const second = await fetchPage(send, first.next ?? '');
      expect(second.items).toHaveLength(1);
      expect(second.next).toBeUndefined();
    },
  },
];
