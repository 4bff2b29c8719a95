import type { Order, Pet, PetStorage } from '../../src/index.js';

/**
 * Just enough storage for the core's own unit tests: rows in arrays, every
 * idempotent create a fresh one. Real storages are held to the port by
 * `runStorageContract`, and the conformance suite runs the core over them
 * (from the storage packages, so core does not depend on any of them).
 */
export function arrayStorage(): PetStorage {
  const pets: Pet[] = [];
  const orders: Order[] = [];
  const createPet: PetStorage['createPet'] = async (input) => {
    const pet = { id: pets.length + 1, ...input };
    pets.push(pet);
    return pet;
  };
  return {
    createPet,
    createPetIdempotent: async (input) => ({ kind: 'created', pet: await createPet(input) }),
    getPet: async (id) => pets.find((pet) => pet.id === id),
    listPets: async ({ status, afterId = 0, limit }) =>
      pets
        .filter((pet) => pet.id > afterId && (status === undefined || pet.status === status))
        .slice(0, limit),
    createOrder: async (input) => {
      const order = { id: orders.length + 1, ...input };
      orders.push(order);
      return order;
    },
    listOrders: async ({ afterId = 0, limit }) =>
      orders.filter((order) => order.id > afterId).slice(0, limit),
    close: async () => {},
  };
}
