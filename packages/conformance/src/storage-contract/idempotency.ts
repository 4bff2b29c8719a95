import { setTimeout as sleep } from 'node:timers/promises';
import type {
  IdempotencyClaim,
  IdempotentCreateResult,
  Pet,
  PetInput,
  PetStorage,
} from '@petstore/core';
import { expect, it } from 'vitest';
import {
  expectPet,
  expectStrictlyIncreasing,
  expectValidId,
  ids,
  listAllPets,
  petInput,
  type Use,
} from './fixture.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A claim as the core builds one: scope stands for the API key's (an HMAC, scrypt or id form), fingerprint a digest of the body. */
const claim = (overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
  scope: 'scope-a',
  key: 'key-1',
  fingerprint: 'fingerprint-1',
  retentionMs: DAY_MS,
  ...overrides,
});

/** The pet of a `created` or `replayed` result; fails the case on any other kind. */
const petOf = (result: IdempotentCreateResult, kind: 'created' | 'replayed'): Pet => {
  expect(result.kind).toBe(kind);
  if (result.kind !== kind) throw new Error(`expected ${kind}, got ${result.kind}`);
  return result.pet;
};

const countPets = async (storage: PetStorage): Promise<number> =>
  (await listAllPets(storage, 100)).length;

/** Resolves once at least `ms` have passed since `since` (a `performance.now()` reading). */
const sleepUntil = async (since: number, ms: number): Promise<void> => {
  const left = since + ms - performance.now();
  if (left > 0) await sleep(Math.ceil(left));
};

/**
 * createPetIdempotent: a live claim (scope, key) replays its pet or refuses another body,
 * races create one pet, expired claims count as absent, and plain createPet is unaffected.
 */
export function registerIdempotencyCases(use: Use): void {
  it(
    'first call is created; the same scope, key and fingerprint replays the same pet and creates nothing',
    use(async (storage) => {
      const input: PetInput = { name: 'Rex', categoryId: 3, status: 'pending' };
      const first = petOf(await storage.createPetIdempotent(input, claim()), 'created');
      expectValidId(first.id);
      expectPet(first, { id: first.id, ...input });

      for (let attempt = 0; attempt < 3; attempt += 1) {
        const again = petOf(await storage.createPetIdempotent(input, claim()), 'replayed');
        expectPet(again, first);
      }
      expect(await countPets(storage)).toBe(1);
      expectPet(await storage.getPet(first.id), first);
    }),
  );

  it(
    'a replay returns the pet the claim created, whatever input accompanies it (storage compares fingerprints only)',
    use(async (storage) => {
      const first = petOf(await storage.createPetIdempotent(petInput(1), claim()), 'created');
      const replay = await storage.createPetIdempotent(petInput(2, { name: 'other' }), claim());
      expectPet(petOf(replay, 'replayed'), first);
      expect(await countPets(storage)).toBe(1);
    }),
  );

  it(
    'same scope and key with another fingerprint is fingerprint_mismatch, creates nothing, and keeps the claim',
    use(async (storage) => {
      const first = petOf(await storage.createPetIdempotent(petInput(1), claim()), 'created');
      const other = claim({ fingerprint: 'fingerprint-2' });
      expect(await storage.createPetIdempotent(petInput(2), other)).toStrictEqual({
        kind: 'fingerprint_mismatch',
      });
      expect(await storage.createPetIdempotent(petInput(2), other)).toStrictEqual({
        kind: 'fingerprint_mismatch',
      });
      expect(await countPets(storage)).toBe(1);
      // The refused request did not replace the original claim.
      expectPet(petOf(await storage.createPetIdempotent(petInput(1), claim()), 'replayed'), first);
    }),
  );

  it(
    'the same key under another scope is independent: created, and each scope replays its own pet',
    use(async (storage) => {
      const a = petOf(await storage.createPetIdempotent(petInput(1), claim()), 'created');
      // Another API key may send another body under the same key: no mismatch across scopes.
      const bClaim = claim({ scope: 'scope-b', fingerprint: 'fingerprint-2' });
      const b = petOf(await storage.createPetIdempotent(petInput(2), bClaim), 'created');
      expect(b.id).not.toBe(a.id);
      expectPet(petOf(await storage.createPetIdempotent(petInput(1), claim()), 'replayed'), a);
      expectPet(petOf(await storage.createPetIdempotent(petInput(2), bClaim), 'replayed'), b);
      expect(await countPets(storage)).toBe(2);
    }),
  );

  it(
    'alsoScopes: a claim stored under another scope of the principal (a previous scope secret) replays (or refuses) under the current one; they are read, never written',
    use(async (storage) => {
      const old = petOf(
        await storage.createPetIdempotent(petInput(1), claim({ scope: 'previous' })),
        'created',
      );
      const rotated = claim({ scope: 'current', alsoScopes: ['previous'] });
      expectPet(petOf(await storage.createPetIdempotent(petInput(1), rotated), 'replayed'), old);
      expect(
        (await storage.createPetIdempotent(petInput(1), { ...rotated, fingerprint: 'other' })).kind,
      ).toBe('fingerprint_mismatch');
      // The replay wrote nothing under 'current': a claim under it alone is new.
      petOf(await storage.createPetIdempotent(petInput(2), claim({ scope: 'current' })), 'created');
      // A create writes under scope only: the same key under an alsoScope alone is new too.
      petOf(
        await storage.createPetIdempotent(
          petInput(3),
          claim({ key: 'key-2', scope: 'current', alsoScopes: ['previous'] }),
        ),
        'created',
      );
      petOf(
        await storage.createPetIdempotent(petInput(4), claim({ key: 'key-2', scope: 'previous' })),
        'created',
      );
      // Any of several: found under the last one read.
      const oldest = petOf(
        await storage.createPetIdempotent(petInput(5), claim({ key: 'key-3', scope: 'oldest' })),
        'created',
      );
      const twice = claim({ key: 'key-3', scope: 'current', alsoScopes: ['previous', 'oldest'] });
      expectPet(petOf(await storage.createPetIdempotent(petInput(5), twice), 'replayed'), oldest);
      expect(await countPets(storage)).toBe(5);
    }),
  );

  it(
    'keys are compared exactly: case, prefixes and the scope/key boundary all make distinct claims',
    use(async (storage) => {
      const claims = [
        claim({ scope: 'ab', key: 'c' }),
        claim({ scope: 'a', key: 'bc' }),
        claim({ scope: 'a', key: 'BC' }),
        claim({ scope: 'a', key: 'bc2' }),
        claim({ scope: 'a', key: 'b' }),
        // Visible ASCII a key may contain, including SQL quoting and LIKE wildcards.
        claim({ scope: 'a', key: `%_'"\\;--*?[]{}~${'k'.repeat(230)}` }),
        claim({ scope: 'a', key: `%_'"\\;--*?[]{}~${'k'.repeat(229)}` }),
      ];
      const created: Pet[] = [];
      for (const [n, each] of claims.entries()) {
        created.push(petOf(await storage.createPetIdempotent(petInput(n), each), 'created'));
      }
      expect(new Set(ids(created)).size).toBe(claims.length);
      for (const [n, each] of claims.entries()) {
        const replay = petOf(await storage.createPetIdempotent(petInput(n), each), 'replayed');
        expect(replay).toStrictEqual(created[n]);
      }
      expect(await countPets(storage)).toBe(claims.length);
    }),
  );

  it(
    '50 concurrent calls with one claim create exactly one pet; the others replay it or are in_flight',
    use(async (storage) => {
      const input = petInput(7, { name: 'raced' });
      const results = await Promise.all(
        Array.from({ length: 50 }, () => storage.createPetIdempotent(input, claim())),
      );
      const kinds = results.map((result) => result.kind);
      expect(kinds.filter((kind) => kind === 'created')).toHaveLength(1);
      for (const kind of kinds) expect(['created', 'replayed', 'in_flight']).toContain(kind);

      const pets = await listAllPets(storage, 100);
      expect(pets).toHaveLength(1);
      const [pet] = pets;
      if (pet === undefined) throw new Error('no pet stored');
      expectPet(pet, { id: pet.id, ...input });
      for (const result of results) {
        if (result.kind === 'created' || result.kind === 'replayed') expectPet(result.pet, pet);
      }
      // Once every call has settled, the claim is no longer in flight: it replays.
      expectPet(petOf(await storage.createPetIdempotent(input, claim()), 'replayed'), pet);
    }),
  );

  it(
    '50 concurrent calls with distinct keys each create their own pet',
    use(async (storage) => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, n) =>
          storage.createPetIdempotent(petInput(n), claim({ key: `key-${n}` })),
        ),
      );
      const created = results.map((result) => petOf(result, 'created'));
      expect(new Set(ids(created)).size).toBe(50);
      expect(await countPets(storage)).toBe(50);
    }),
  );

  it(
    'retention: the claim replays before retentionMs elapses; afterwards the key is absent and creates a new pet',
    use(async (storage) => {
      const retentionMs = 300;
      const short = claim({ retentionMs });
      const first = petOf(await storage.createPetIdempotent(petInput(1), short), 'created');
      const createdBy = performance.now();
      expectPet(petOf(await storage.createPetIdempotent(petInput(1), short), 'replayed'), first);
      const refused = await storage.createPetIdempotent(petInput(2), {
        ...short,
        fingerprint: 'fingerprint-2',
      });
      expect(refused.kind).toBe('fingerprint_mismatch');

      // Expiry counts from creation, which happened before `createdBy`; a margin covers clock granularity.
      await sleepUntil(createdBy, retentionMs + 100);
      const second = petOf(await storage.createPetIdempotent(petInput(1), short), 'created');
      expect(second.id).toBeGreaterThan(first.id);
      expectPet(second, { id: second.id, ...petInput(1) });
      // The new claim is live again, and points at the new pet.
      expectPet(petOf(await storage.createPetIdempotent(petInput(1), short), 'replayed'), second);
      expect(await countPets(storage)).toBe(2);
      expectPet(await storage.getPet(first.id), first);
    }),
  );

  it(
    'an expired claim does not refuse another body: created under the same key',
    use(async (storage) => {
      const retentionMs = 150;
      petOf(await storage.createPetIdempotent(petInput(1), claim({ retentionMs })), 'created');
      const createdBy = performance.now();
      await sleepUntil(createdBy, retentionMs + 100);
      const other = claim({ retentionMs: DAY_MS, fingerprint: 'fingerprint-2' });
      const second = petOf(await storage.createPetIdempotent(petInput(2), other), 'created');
      expectPet(petOf(await storage.createPetIdempotent(petInput(2), other), 'replayed'), second);
      expect(
        (await storage.createPetIdempotent(petInput(1), claim({ retentionMs: DAY_MS }))).kind,
      ).toBe('fingerprint_mismatch');
      expect(await countPets(storage)).toBe(2);
    }),
  );

  it(
    'a create that rejects stores no claim: the same claim later creates the pet',
    use(async (storage) => {
      // An unknown status is a bug upstream; every storage refuses it and must not keep the key.
      const bad = { ...petInput(1), status: 'lost' } as unknown as PetInput;
      await expect(storage.createPetIdempotent(bad, claim())).rejects.toThrow();
      expect(await countPets(storage)).toBe(0);
      // A storage may answer in_flight for an instant: PostgreSQL sends a statement's error
      // before it ends the transaction and frees the claim's lock (seen through PgBouncer). The
      // retry is a client's; a claim kept, or a lock never freed, still fails the case.
      let retried = await storage.createPetIdempotent(petInput(1), claim());
      for (const started = performance.now(); retried.kind === 'in_flight'; ) {
        if (performance.now() - started > 1000) break;
        await sleep(20);
        retried = await storage.createPetIdempotent(petInput(1), claim());
      }
      const pet = petOf(retried, 'created');
      expectPet(petOf(await storage.createPetIdempotent(petInput(1), claim()), 'replayed'), pet);
      expect(await countPets(storage)).toBe(1);
    }),
  );

  it(
    'plain createPet is unaffected by claims, and idempotent pets are listed and readable like any other',
    use(async (storage) => {
      const plain1 = await storage.createPet(petInput(1));
      const keyed = petOf(await storage.createPetIdempotent(petInput(1), claim()), 'created');
      // The same input without a key always creates, claim or not.
      const plain2 = await storage.createPet(petInput(1));
      const plain3 = await storage.createPet(petInput(1));
      petOf(await storage.createPetIdempotent(petInput(1), claim()), 'replayed');
      const all = [plain1, keyed, plain2, plain3];
      expectStrictlyIncreasing(ids(all));
      expect(new Set(ids(all)).size).toBe(4);

      expectPet(await storage.getPet(keyed.id), keyed);
      const listed = await listAllPets(storage, 2);
      expect(listed).toHaveLength(4);
      listed.forEach((pet, n) => {
        expectPet(pet, all[n] ?? pet);
      });
      const byStatus = await listAllPets(storage, 1, keyed.status);
      expect(ids(byStatus)).toEqual(ids(all));
      expect(await storage.listPets({ limit: 1, afterId: plain1.id })).toStrictEqual([keyed]);
    }),
  );

  it(
    'a pet created by plain createPet holds no claim: the key is still free',
    use(async (storage) => {
      const plain = await storage.createPet(petInput(1));
      const keyed = petOf(await storage.createPetIdempotent(petInput(1), claim()), 'created');
      expect(keyed.id).toBeGreaterThan(plain.id);
    }),
  );
}
