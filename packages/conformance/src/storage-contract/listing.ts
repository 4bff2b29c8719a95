import type { Pet, PetStatus } from '@petstore/core';
import { PET_STATUSES } from '@petstore/core';
import { expect, it } from 'vitest';
import {
  createPets,
  expectPet,
  expectStrictlyIncreasing,
  ids,
  listAllPets,
  petInput,
  type Use,
} from './fixture.js';

const statusesOf = (pets: readonly Pet[], status: PetStatus): Pet[] =>
  pets.filter((pet) => pet.status === status);

/** listPets: keyset pages (`id > afterId`, ascending, at most `limit`) with and without status. */
export function registerListingCases(use: Use): void {
  it(
    'an empty store lists nothing, with or without afterId and status',
    use(async (storage) => {
      expect(await storage.listPets({ limit: 20 })).toEqual([]);
      expect(await storage.listPets({ limit: 20, afterId: 5 })).toEqual([]);
      expect(await storage.listPets({ limit: 20, status: 'sold' })).toEqual([]);
      expect(await storage.listPets({ limit: 1, status: 'available', afterId: 1 })).toEqual([]);
    }),
  );

  it(
    'lists in ascending id order, at most limit rows, with full pets',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 12 }, (_, n) => petInput(n)),
      );
      const page = await storage.listPets({ limit: 5 });
      expect(ids(page)).toEqual(ids(pets.slice(0, 5)));
      page.forEach((pet, i) => {
        expectPet(pet, pets[i] ?? pet);
      });
      expect(ids(await storage.listPets({ limit: 100 }))).toEqual(ids(pets));
      expect(ids(await storage.listPets({ limit: 12 }))).toEqual(ids(pets));
    }),
  );

  it(
    'limit 1 returns exactly one row, the smallest id after afterId',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 4 }, (_, n) => petInput(n)),
      );
      expect(ids(await storage.listPets({ limit: 1 }))).toEqual(ids(pets.slice(0, 1)));
      const second = pets[1];
      expect(ids(await storage.listPets({ limit: 1, afterId: pets[0]?.id ?? 0 }))).toEqual(
        second === undefined ? [] : [second.id],
      );
    }),
  );

  it(
    'afterId returns only ids greater than it, including when afterId is between ids or below all',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 10 }, (_, n) => petInput(n)),
      );
      for (const [i, pet] of pets.entries()) {
        const page = await storage.listPets({ limit: 100, afterId: pet.id });
        expect(ids(page)).toEqual(ids(pets.slice(i + 1)));
      }
      const first = pets[0]?.id ?? 1;
      expect(ids(await storage.listPets({ limit: 100, afterId: first - 1 }))).toEqual(ids(pets));
      expect(ids(await storage.listPets({ limit: 100, afterId: 0 }))).toEqual(ids(pets));
      expect(ids(await storage.listPets({ limit: 3, afterId: pets[4]?.id ?? 0 }))).toEqual(
        ids(pets.slice(5, 8)),
      );
    }),
  );

  it(
    'afterId at or beyond the last id returns an empty page',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 3 }, (_, n) => petInput(n)),
      );
      const last = pets.at(-1)?.id ?? 0;
      expect(await storage.listPets({ limit: 20, afterId: last })).toEqual([]);
      expect(await storage.listPets({ limit: 20, afterId: last + 1000 })).toEqual([]);
      expect(await storage.listPets({ limit: 20, afterId: Number.MAX_SAFE_INTEGER })).toEqual([]);
      expect(
        await storage.listPets({ limit: 20, afterId: Number.MAX_SAFE_INTEGER, status: 'sold' }),
      ).toEqual([]);
    }),
  );

  it(
    'the status filter returns only that status, ascending, at most limit',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 30 }, (_, n) => petInput(n)),
      );
      for (const status of PET_STATUSES) {
        const expected = statusesOf(pets, status);
        const page = await storage.listPets({ limit: 100, status });
        expect(ids(page)).toEqual(ids(expected));
        page.forEach((pet, i) => {
          expectPet(pet, expected[i] ?? pet);
        });
        expect(ids(await storage.listPets({ limit: 4, status }))).toEqual(
          ids(expected.slice(0, 4)),
        );
      }
    }),
  );

  it(
    'the status filter combines with afterId, also when afterId is a pet of another status',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 30 }, (_, n) => petInput(n)),
      );
      for (const status of PET_STATUSES) {
        for (const pivot of pets) {
          const expected = statusesOf(pets, status).filter((pet) => pet.id > pivot.id);
          const page = await storage.listPets({ limit: 3, status, afterId: pivot.id });
          expect(ids(page)).toEqual(ids(expected.slice(0, 3)));
        }
      }
    }),
  );

  it(
    'a status with no pets lists nothing even when other statuses are plentiful',
    use(async (storage) => {
      await createPets(
        storage,
        Array.from({ length: 20 }, (_, n) => petInput(n, { status: 'available' })),
      );
      expect(await storage.listPets({ limit: 20, status: 'sold' })).toEqual([]);
      expect(await storage.listPets({ limit: 20, status: 'pending', afterId: 3 })).toEqual([]);
    }),
  );

  it(
    'walking pages of any size visits every pet exactly once, in order',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 23 }, (_, n) => petInput(n)),
      );
      for (const limit of [1, 2, 3, 5, 22, 23, 24, 100]) {
        expect(ids(await listAllPets(storage, limit))).toEqual(ids(pets));
        for (const status of PET_STATUSES) {
          expect(ids(await listAllPets(storage, limit, status))).toEqual(
            ids(statusesOf(pets, status)),
          );
        }
      }
    }),
  );

  it(
    'creating pets while paging never shows a pet twice nor skips one that existed at the start',
    use(async (storage) => {
      const initial = await createPets(
        storage,
        Array.from({ length: 20 }, (_, n) => petInput(n)),
      );
      for (const status of [undefined, 'pending'] as const) {
        const seen: number[] = [];
        let afterId: number | undefined;
        let created = 0;
        // Bounded: pages of 3 outrun the 2 inserted per page, and inserts stop after 40 pages.
        for (let page = 0; page < 200; page += 1) {
          const query = {
            limit: 3,
            ...(afterId === undefined ? {} : { afterId }),
            ...(status === undefined ? {} : { status }),
          };
          const rows = await storage.listPets(query);
          seen.push(...ids(rows));
          const last = rows.at(-1);
          if (rows.length < 3 || last === undefined) break;
          afterId = last.id;
          if (page < 40) {
            await storage.createPet(petInput(1000 + created, { status: 'pending' }));
            await storage.createPet(petInput(2000 + created, { status: 'available' }));
            created += 1;
          }
        }
        expectStrictlyIncreasing(seen);
        expect(new Set(seen).size).toBe(seen.length);
        const wanted = status === undefined ? initial : statusesOf(initial, status);
        for (const pet of wanted) expect(seen).toContain(pet.id);
      }
    }),
  );

  it(
    'after many creations the listing holds exactly the created pets',
    use(async (storage) => {
      const pets = await createPets(
        storage,
        Array.from({ length: 120 }, (_, n) => petInput(n)),
      );
      const listed = await listAllPets(storage, 7);
      expectStrictlyIncreasing(ids(listed));
      expect(listed).toStrictEqual(pets);
    }),
  );
}
