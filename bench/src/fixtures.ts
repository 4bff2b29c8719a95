import { PET_STATUSES, type PetInput, type PetStatus } from '@petstore/core';

/** The one API key every server in the bench accepts; never leaves 127.0.0.1. */
export const API_KEY = 'bench-key-5f0c2a9e7d1b4c38a6e0f2d9b7c1a4e3';
export const AUTHORIZATION = `Bearer ${API_KEY}`;

export const STATUSES: readonly PetStatus[] = PET_STATUSES;

/**
 * The pet with id `id` in every seeded store: the same rule in memory, in the bare
 * routes' arrays and in the SQL seed (see postgres-seed.ts), so all sides serve the same data.
 */
export const seedPet = (id: number): PetInput => ({
  name: `pet-${id}`,
  categoryId: 1 + (id % 50),
  status: STATUSES[id % 3] ?? 'available',
});

/** Pets the list servers start with: enough that a page of 20 has a next page. */
export const LIST_SEED_SIZE = 1000;

/** The create request body, the same for every side. */
export const CREATE_BODY = JSON.stringify({ name: 'Rex', categoryId: 7, status: 'pending' });

/** The list request every HTTP side answers. */
export const LIST_PATH = '/v1/pets?limit=20';
export const CREATE_PATH = '/v1/pets';
