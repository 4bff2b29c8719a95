import type { OrderInput } from '@petstore/core';
import { expect } from 'vitest';
import { BASE, get, nextPath } from './helpers.js';
import type { ConformanceCase } from './types.js';

const orders = (count: number): OrderInput[] =>
  Array.from({ length: count }, (_, i) => ({
    petId: i + 1,
    quantity: i + 1,
    shipDate: new Date(Date.UTC(2026, 0, i + 1)).toISOString(),
    status: (['placed', 'approved', 'delivered'] as const)[i % 3] ?? 'placed',
    complete: i % 2 === 0,
  }));

export const orderCases: ConformanceCase[] = [
  {
    name: 'listOrders: an empty listing is []',
    rule: 'GET /store/orders: a listing',
    request: get('/store/orders'),
    expect: { status: 200, body: [], headers: { link: undefined } },
  },
  {
    name: 'listOrders: orders recorded by the host are listed with the Petstore fields, ascending',
    rule: 'GET /store/orders: fields id, petId, quantity, shipDate, status, complete',
    seed: { orders: orders(2) },
    run: async ({ send }) => {
      const res = await send(get('/store/orders'));
      expect(res.status).toBe(200);
      const items = JSON.parse(res.body) as { id: number }[];
      expect(items).toEqual([
        {
          id: expect.any(Number),
          petId: 1,
          quantity: 1,
          shipDate: '2026-01-01T00:00:00.000Z',
          status: 'placed',
          complete: true,
        },
        {
          id: expect.any(Number),
          petId: 2,
          quantity: 2,
          shipDate: '2026-01-02T00:00:00.000Z',
          status: 'approved',
          complete: false,
        },
      ]);
      expect((items[0]?.id ?? 0) < (items[1]?.id ?? 0)).toBe(true);
    },
  },
  {
    name: 'listOrders: pages with limit and rel="next" like GET /pets',
    rule: 'GET /store/orders: same limit and cursor rules as GET /pets',
    seed: { orders: orders(5) },
    run: async ({ send }) => {
      const seen: number[] = [];
      let path: string | undefined = `${BASE}/store/orders?limit=2`;
      for (let guard = 0; path !== undefined && guard < 10; guard++) {
        const res = await send({ method: 'GET', path, headers: get('/').headers ?? {} });
        expect(res.status).toBe(200);
        seen.push(...(JSON.parse(res.body) as { id: number }[]).map((order) => order.id));
        const next = nextPath(res.headers.link);
        if (next !== undefined)
          expect(next).toMatch(new RegExp(`^${BASE}/store/orders\\?limit=2&cursor=`));
        path = next;
      }
      expect(seen).toHaveLength(5);
      expect(new Set(seen).size).toBe(5);
    },
  },
  {
    name: 'listOrders: limit=0 is 400 naming limit',
    rule: 'GET /store/orders: same limit rules as GET /pets',
    request: get('/store/orders?limit=0'),
    expect: { status: 400, code: 'invalid_request', mentions: ['limit'] },
  },
  {
    name: 'listOrders: a bad cursor is 400 naming cursor',
    rule: 'GET /store/orders: same cursor rules as GET /pets',
    request: get('/store/orders?cursor=@@'),
    expect: { status: 400, code: 'invalid_request', mentions: ['cursor'] },
  },
];
