import { MAX_ID, PET_STATUSES, type PetInput } from '@petstore/core';
import { expect, it } from 'vitest';
import {
  createPets,
  expectPet,
  expectStrictlyIncreasing,
  expectValidId,
  ids,
  listAllPets,
  petInput,
  type Use,
} from './fixture.js';

/** createPet / getPet: shape, ids, exact round-trips. */
export function registerPetCases(use: Use): void {
  it(
    'createPet returns exactly {id, name, categoryId, status} in that order',
    use(async (storage) => {
      const pet = await storage.createPet({ name: 'Rex', categoryId: 3, status: 'pending' });
      expectValidId(pet.id);
      expectPet(pet, { id: pet.id, name: 'Rex', categoryId: 3, status: 'pending' });
    }),
  );

  it(
    'getPet returns the stored pet with the same fields and key order',
    use(async (storage) => {
      const created = await storage.createPet({ name: 'Tom', categoryId: 9, status: 'sold' });
      expectPet(await storage.getPet(created.id), created);
    }),
  );

  it(
    'getPet of an unknown id is undefined (not an error)',
    use(async (storage) => {
      expect(await storage.getPet(1)).toBeUndefined();
      const pet = await storage.createPet(petInput(1));
      expect(await storage.getPet(pet.id + 1)).toBeUndefined();
      expect(await storage.getPet(pet.id + 1_000_000)).toBeUndefined();
      expect(await storage.getPet(MAX_ID)).toBeUndefined();
    }),
  );

  it(
    'ids are positive safe integers, strictly increasing in creation order',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 25 }, (_, n) => petInput(n)),
      );
      for (const pet of pets) expectValidId(pet.id);
      expectStrictlyIncreasing(ids(pets));
    }),
  );

  it(
    'ids are never reused: every created pet keeps its own id and fields',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 30 }, (_, n) => petInput(n)),
      );
      expect(new Set(ids(pets)).size).toBe(pets.length);
      for (const pet of pets) expectPet(await storage.getPet(pet.id), pet);
    }),
  );

  it(
    '200 concurrent createPet calls get distinct ids and are all listed afterwards',
    use(async (storage) => {
      const inputs = Array.from({ length: 200 }, (_, n) =>
        petInput(n, { name: `concurrent-${n}` }),
      );
      const created = await Promise.all(inputs.map((input) => storage.createPet(input)));
      for (const pet of created) expectValidId(pet.id);
      expect(new Set(ids(created)).size).toBe(200);
      created.forEach((pet, n) => {
        expectPet(pet, { id: pet.id, ...(inputs[n] ?? petInput(n)) });
      });

      const listed = await listAllPets(storage, 50);
      expectStrictlyIncreasing(ids(listed));
      expect(ids(listed)).toEqual([...ids(created)].sort((a, b) => a - b));
      for (const pet of listed) expectPet(pet, created.find((c) => c.id === pet.id) ?? pet);
    }),
  );

  it(
    'categoryId round-trips exactly up to Number.MAX_SAFE_INTEGER',
    use(async (storage) => {
      const categoryIds = [1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 1, 2 ** 53 - 2, MAX_ID];
      for (const categoryId of categoryIds) {
        const pet = await storage.createPet({ name: 'big', categoryId, status: 'available' });
        expect(pet.categoryId).toBe(categoryId);
        expect((await storage.getPet(pet.id))?.categoryId).toBe(categoryId);
      }
      const listed = await listAllPets(storage, 100);
      expect(listed.map((pet) => pet.categoryId)).toEqual(categoryIds);
    }),
  );

  it(
    'names round-trip exactly: 256 characters, emoji, combining marks, quotes and SQL-ish text',
    use(async (storage) => {
      const names = [
        'x'.repeat(256),
        'é'.repeat(256),
        'a',
        '🐶🐱🦜 Bello 🐕‍🦺',
        // Decomposed and precomposed forms must both survive (no normalisation).
        'Zoe\u0308 / Zoë',
        'cafe\u0301 and ñ and 漢字',
        `O'Malley "the" \\cat\\ %_; DROP TABLE pets; --`,
        '  padded  ',
        'tab\tnew\nline',
      ];
      for (const name of names) {
        const pet = await storage.createPet({ name, categoryId: 1, status: 'available' });
        expect(pet.name).toBe(name);
        expect((await storage.getPet(pet.id))?.name).toBe(name);
      }
      expect((await listAllPets(storage, 100)).map((pet) => pet.name)).toEqual(names);
    }),
  );

  it(
    'every status round-trips',
    use(async (storage) => {
      for (const status of PET_STATUSES) {
        const pet = await storage.createPet({ name: status, categoryId: 1, status });
        expect(pet.status).toBe(status);
        expect((await storage.getPet(pet.id))?.status).toBe(status);
      }
    }),
  );

  it(
    'returned pets are copies: changing one changes nothing stored, nor does changing the input',
    use(async (storage) => {
      const input: PetInput = { name: 'Original', categoryId: 5, status: 'pending' };
      const created = await storage.createPet(input);
      const snapshot = { ...created };
      // Reflect.set: a storage may hand out frozen objects, which is fine too.
      Reflect.set(input, 'name', 'changed input');
      Reflect.set(created, 'name', 'changed result');
      const fetched = await storage.getPet(snapshot.id);
      expectPet(fetched, snapshot);
      if (fetched !== undefined) Reflect.set(fetched, 'categoryId', 77);
      const [listed] = await storage.listPets({ limit: 1 });
      if (listed !== undefined) Reflect.set(listed, 'status', 'sold');
      expectPet(await storage.getPet(snapshot.id), snapshot);
      expectPet((await storage.listPets({ limit: 1 }))[0], snapshot);
    }),
  );
}
