import { MAX_ID } from '@petstore/core';
import { expect, it } from 'vitest';
import {
  expectOrder,
  expectStrictlyIncreasing,
  expectValidId,
  ids,
  listAll,
  orderInput,
  petInput,
  type Use,
} from './fixture.js';

/** createOrder / listOrders: same id and keyset rules as pets; fields round-trip exactly. */
export function registerOrderCases(use: Use): void {
  it(
    'createOrder returns exactly the order fields in order, and listOrders returns the same',
    use(async (storage) => {
      const pet = await storage.createPet(petInput(1));
      const input = orderInput(pet.id, 0, {
        quantity: 3,
        shipDate: '2031-02-03T04:05:06.789Z',
        status: 'approved',
        complete: false,
      });
      const order = await storage.createOrder(input);
      expectValidId(order.id);
      expectOrder(order, { id: order.id, ...input });
      const [listed] = await storage.listOrders({ limit: 10 });
      expectOrder(listed, order);
    }),
  );

  it(
    'order fields round-trip: every status, both booleans, large quantity and petId, shipDate as given',
    use(async (storage) => {
      const pet = await storage.createPet(petInput(1));
      const inputs = [
        orderInput(pet.id, 0, { status: 'placed', complete: false, quantity: 1 }),
        orderInput(pet.id, 1, { status: 'approved', complete: true, quantity: MAX_ID }),
        orderInput(pet.id, 2, {
          status: 'delivered',
          complete: true,
          shipDate: '1999-12-31T23:59:59.000Z',
        }),
      ];
      const created = [];
      for (const input of inputs) created.push(await storage.createOrder(input));
      created.forEach((order, i) => {
        expectOrder(order, { id: order.id, ...(inputs[i] ?? orderInput(pet.id, i)) });
      });
      const listed = await storage.listOrders({ limit: 10 });
      expect(listed).toStrictEqual(created);
    }),
  );

  it(
    'an empty store lists no orders',
    use(async (storage) => {
      expect(await storage.listOrders({ limit: 20 })).toEqual([]);
      expect(await storage.listOrders({ limit: 20, afterId: 3 })).toEqual([]);
    }),
  );

  it(
    'order ids are strictly increasing, and listOrders keeps the keyset rules',
    use(async (storage) => {
      const pet = await storage.createPet(petInput(1));
      const orders = [];
      for (let n = 0; n < 11; n += 1) orders.push(await storage.createOrder(orderInput(pet.id, n)));
      for (const order of orders) expectValidId(order.id);
      expectStrictlyIncreasing(ids(orders));

      expect(ids(await storage.listOrders({ limit: 4 }))).toEqual(ids(orders.slice(0, 4)));
      expect(ids(await storage.listOrders({ limit: 1 }))).toEqual(ids(orders.slice(0, 1)));
      for (const [i, order] of orders.entries()) {
        expect(ids(await storage.listOrders({ limit: 100, afterId: order.id }))).toEqual(
          ids(orders.slice(i + 1)),
        );
      }
      const last = orders.at(-1)?.id ?? 0;
      expect(await storage.listOrders({ limit: 5, afterId: last + 1000 })).toEqual([]);
      expect(await storage.listOrders({ limit: 5, afterId: MAX_ID })).toEqual([]);
      for (const limit of [1, 3, 11, 50]) {
        expect(ids(await listAll((q) => storage.listOrders(q), limit))).toEqual(ids(orders));
      }
    }),
  );

  it(
    '50 concurrent createOrder calls get distinct ids and are all listed afterwards',
    use(async (storage) => {
      const pet = await storage.createPet(petInput(1));
      const created = await Promise.all(
        Array.from({ length: 50 }, (_, n) => storage.createOrder(orderInput(pet.id, n))),
      );
      expect(new Set(ids(created)).size).toBe(50);
      const listed = await listAll((q) => storage.listOrders(q), 20);
      expect(ids(listed)).toEqual([...ids(created)].sort((a, b) => a - b));
    }),
  );

  it(
    'orders and pets do not disturb each other',
    use(async (storage) => {
      const pet = await storage.createPet(petInput(1));
      await storage.createOrder(orderInput(pet.id, 0));
      const second = await storage.createPet(petInput(2));
      expect(ids(await storage.listPets({ limit: 10 }))).toEqual([pet.id, second.id]);
      expect(await storage.listOrders({ limit: 10 })).toHaveLength(1);
    }),
  );
}
