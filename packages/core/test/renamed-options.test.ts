import { describe, expect, it } from 'vitest';
import { createPetStore } from '../src/index.js';
import { arrayStorage } from './support/array-storage.js';

const auth = { authorization: 'Bearer test-key-0123456789' };
const createRex = {
  method: 'POST',
  path: '/pets',
  headers: { ...auth, 'content-type': 'application/json' },
  body: '{"name":"Rex","categoryId":1}',
};

/** Deprecation warnings this process emits while `run` runs (Node emits them on the next tick). */
async function warningsDuring(run: () => Promise<unknown>): Promise<Error[]> {
  const seen: Error[] = [];
  const listener = (warning: Error) => seen.push(warning);
  process.on('warning', listener);
  try {
    await run();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen.filter((warning) => warning.name === 'DeprecationWarning');
}

describe('renamed options, still read for one minor version', () => {
  it('basePath (now publicPath) still sets the links, with one deprecation warning', async () => {
    const warnings = await warningsDuring(async () => {
      for (const _ of [1, 2]) {
        const store = createPetStore({
          storage: arrayStorage(),
          apiKeys: ['test-key-0123456789'],
          basePath: '/old',
        });
        expect((await store.handle(createRex)).headers.location).toBe('/old/pets/1');
      }
    });
    expect(warnings.map((warning) => warning.message)).toEqual([
      'createPetStore: the option `basePath` is now `publicPath`; `basePath` is still read until the next minor version.',
    ]);
  });

  it('publicPath wins over basePath when both are given', async () => {
    const store = createPetStore({
      storage: arrayStorage(),
      apiKeys: ['test-key-0123456789'],
      basePath: '/old',
      publicPath: '/new',
    });
    expect((await store.handle(createRex)).headers.location).toBe('/new/pets/1');
  });

  it("a request's basePath (now publicPath) still sets its links", async () => {
    const store = createPetStore({ storage: arrayStorage(), apiKeys: ['test-key-0123456789'] });
    const warnings = await warningsDuring(async () => {
      const res = await store.handle({ ...createRex, basePath: '/mounted' });
      expect(res.headers.location).toBe('/mounted/pets/1');
    });
    expect(warnings.map((warning) => warning.message)).toEqual([
      'PetStoreRequest: the option `basePath` is now `publicPath`; `basePath` is still read until the next minor version.',
    ]);
  });
});

describe('a path no operation has', () => {
  it('is named in the 404 as the client sent it, public path included', async () => {
    const store = createPetStore({ storage: arrayStorage(), apiKeys: ['test-key-0123456789'] });
    const res = await store.handle({ method: 'GET', path: '/nope', headers: auth });
    expect(JSON.parse(res.body ?? '')).toMatchObject({ message: 'No route for /v1/nope.' });
    const mounted = await store.handle({
      method: 'GET',
      path: '/nope',
      headers: auth,
      publicPath: '/api/pets-v1',
    });
    expect(JSON.parse(mounted.body ?? '')).toMatchObject({
      message: 'No route for /api/pets-v1/nope.',
    });
  });
});
