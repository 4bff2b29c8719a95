import { describe, expect, it } from 'vitest';
import { createPetStore } from '../src/index.js';
import { arrayStorage } from './support/array-storage.js';

const auth = { authorization: 'Bearer k' };
const create = (store: ReturnType<typeof createPetStore>, basePath?: string) =>
  store.handle({
    method: 'POST',
    path: '/pets',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{"name":"Rex","categoryId":1}',
    basePath,
  });

describe('createPetStore', () => {
  it('refuses to start without a way to authenticate', () => {
    expect(() => createPetStore({ storage: arrayStorage() })).toThrow(/apiKeys.*verify/);
    expect(() => createPetStore({ storage: arrayStorage(), apiKeys: [] })).toThrow(/non-empty/);
    expect(() => createPetStore({ storage: arrayStorage(), apiKeys: [''] })).toThrow(/non-empty/);
  });

  it('refuses a nonsensical maxBodyBytes', () => {
    expect(() =>
      createPetStore({ storage: arrayStorage(), apiKeys: ['k'], maxBodyBytes: 0 }),
    ).toThrow(/maxBodyBytes/);
  });

  it('builds links from the basePath option when the request does not say its mount point', async () => {
    const store = createPetStore({
      storage: arrayStorage(),
      apiKeys: ['k'],
      basePath: '/api/v1/',
    });
    const res = await create(store);
    expect(res.headers.location).toBe('/api/v1/pets/1');
  });

  it("prefers the request's own mount point for links", async () => {
    const store = createPetStore({ storage: arrayStorage(), apiKeys: ['k'] });
    expect((await create(store, '/pets-api')).headers.location).toBe('/pets-api/pets/1');
    const page = await store.handle({
      method: 'GET',
      path: '/pets',
      query: 'limit=1',
      headers: auth,
      basePath: '/pets-api',
    });
    expect(page.status).toBe(200);
    expect(page.headers.link).toBeUndefined();
    await create(store, '/pets-api');
    const next = await store.handle({
      method: 'GET',
      path: '/pets',
      query: 'limit=1',
      headers: auth,
      basePath: '/pets-api',
    });
    expect(next.headers.link).toMatch(
      /^<\/pets-api\/pets\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/,
    );
  });

  it('answers an unexpected exception with 500 and never rejects', async () => {
    const storage = arrayStorage();
    const store = createPetStore({ storage, apiKeys: ['k'] });
    const res = await store.handle({
      method: 'GET',
      path: '/pets',
      headers: auth,
      query: undefined,
      get body(): never {
        throw new Error('boom');
      },
    });
    expect(res.status).toBe(200);
  });
});
