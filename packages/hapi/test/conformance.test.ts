import { conformanceCases, runConformance } from '@petstore/core/testing';
import { createMemoryStorage } from '@petstore/storage-memory';
import { describe, expect, it } from 'vitest';
import { serveHapi } from './helpers.js';

const names = runConformance({
  name: 'hapi over memory',
  storage: () => createMemoryStorage(),
  serve: (store) => serveHapi(store),
});

describe('conformance case list', () => {
  it('is the whole suite, the same list core and express run, none skipped', () => {
    expect(names).toEqual(conformanceCases.map((testCase) => testCase.name));
    expect(new Set(names).size).toBe(conformanceCases.length);
  });
});
