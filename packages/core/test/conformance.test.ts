import { conformanceCases, coreTarget, runConformance } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import { expect, it } from 'vitest';

// The core alone: the reference every adapter must match.
const names = runConformance({
  name: 'core over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => coreTarget(store),
});

it('registers every conformance case, none skipped', () => {
  expect(names).toEqual(conformanceCases.map((c) => c.name));
});
