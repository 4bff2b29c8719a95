import { describe, expect, it } from 'vitest';
import { createPetStore, StorageUnavailableError } from '../src/index.js';
import { arrayStorage } from './support/array-storage.js';

const auth = { authorization: 'Bearer test-key-0123456789' };
const create = (store: ReturnType<typeof createPetStore>, publicPath?: string) =>
  store.handle({
    method: 'POST',
    path: '/pets',
    headers: { ...auth, 'content-type': 'application/json' },
    body: '{"name":"Rex","categoryId":1}',
    publicPath,
  });

describe('createPetStore', () => {
  it('refuses to start without a way to authenticate', () => {
    expect(() => createPetStore({ storage: arrayStorage() })).toThrow(/apiKeys.*verify/);
    expect(() => createPetStore({ storage: arrayStorage(), apiKeys: [] })).toThrow(/non-empty/);
    expect(() => createPetStore({ storage: arrayStorage(), apiKeys: [''] })).toThrow(/non-empty/);
  });

  it('refuses API keys shorter than 16 characters, with a clear start-up error', () => {
    const make = (apiKeys: (string | { id: string; key: string })[]) =>
      createPetStore({ storage: arrayStorage(), apiKeys });
    expect(() => make(['fifteen-chars-x'])).toThrow(
      /entry 1 is 15 characters long; keys must have at least 16/,
    );
    expect(() => make(['sixteen-chars-xx', { id: 'ops', key: 'short' }])).toThrow(
      /entry 2 is 5 characters long/,
    );
    // Characters, not UTF-16 units: 8 emoji are 16 units but 8 characters.
    expect(() => make(['🐈'.repeat(8)])).toThrow(/8 characters long/);
    expect(() => make(['sixteen-chars-xx'])).not.toThrow();
  });

  it('refuses a nonsensical maxBodyBytes', () => {
    expect(() =>
      createPetStore({
        storage: arrayStorage(),
        apiKeys: ['test-key-0123456789'],
        maxBodyBytes: 0,
      }),
    ).toThrow(/maxBodyBytes/);
  });

  it('builds links from the publicPath option when the request does not say its own', async () => {
    const store = createPetStore({
      storage: arrayStorage(),
      apiKeys: ['test-key-0123456789'],
      publicPath: '/api/v1/',
    });
    const res = await create(store);
    expect(res.headers.location).toBe('/api/v1/pets/1');
  });

  it("prefers the request's own public path for links", async () => {
    const store = createPetStore({ storage: arrayStorage(), apiKeys: ['test-key-0123456789'] });
    expect((await create(store, '/pets-api')).headers.location).toBe('/pets-api/pets/1');
    const page = await store.handle({
      method: 'GET',
      path: '/pets',
      query: 'limit=1',
      headers: auth,
      publicPath: '/pets-api',
    });
    expect(page.status).toBe(200);
    expect(page.headers.link).toBeUndefined();
    await create(store, '/pets-api');
    const next = await store.handle({
      method: 'GET',
      path: '/pets',
      query: 'limit=1',
      headers: auth,
      publicPath: '/pets-api',
    });
    expect(next.headers.link).toMatch(
      /^<\/pets-api\/pets\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/,
    );
  });

  it('answers an unexpected exception with 500 and never rejects', async () => {
    const storage = arrayStorage();
    const store = createPetStore({ storage, apiKeys: ['test-key-0123456789'] });
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

  it('answers a storage that throws instead of rejecting as if it had rejected', async () => {
    const errors: { error: unknown; route: string | undefined }[] = [];
    const storage = arrayStorage();
    const store = createPetStore({
      storage: {
        ...storage,
        createPet: () => {
          throw new Error('sync boom');
        },
        listPets: () => {
          throw new StorageUnavailableError('down', { retryAfterSeconds: 3 });
        },
      },
      apiKeys: ['test-key-0123456789'],
      hooks: { onError: ({ error, route }) => errors.push({ error, route }) },
    });
    const created = await create(store);
    expect(created.status).toBe(500);
    expect(errors).toEqual([{ error: new Error('sync boom'), route: '/pets' }]);
    const list = await store.handle({ method: 'GET', path: '/pets', headers: auth });
    expect([list.status, list.headers['retry-after']]).toEqual([503, '3']);
    expect(errors).toHaveLength(1);
  });

  it('refuses a public path that is not a URL path, at construction', async () => {
    const make = (publicPath: string) =>
      createPetStore({ storage: arrayStorage(), apiKeys: ['test-key-0123456789'], publicPath });
    for (const bad of [
      '/v1\r\nX-Evil: 1',
      '/v1>; rel="evil"',
      '/v 1',
      '/v1?x',
      '/v1#x',
      '/%zz',
      '//evil.example',
      'https://x/v1',
      'x:y/v1',
      '/v1/../admin',
      './v1',
    ]) {
      expect(() => make(bad), bad).toThrow(TypeError);
    }
    expect(() => make('/v1\nX')).toThrow(/publicPath must be a URL path/);
    expect(() => make('https://x/v1')).toThrow(/publicPath must be a path, not a URL/);
    const location = async (publicPath: string) =>
      (await create(make(publicPath))).headers.location;
    expect(await location('v1//')).toBe('/v1/pets/1');
    expect(await location('/')).toBe('/pets/1');
    expect(await location("/a-b_c.d~e!$&'()*+,;=:@/%2F")).toBe(
      "/a-b_c.d~e!$&'()*+,;=:@/%2F/pets/1",
    );
  });

  it('trims a public path in linear time (the old /\\/+$/ took minutes on this one)', async () => {
    const long = `/a${'/'.repeat(200_000)}b`;
    const store = createPetStore({
      storage: arrayStorage(),
      apiKeys: ['test-key-0123456789'],
      publicPath: `${long}${'/'.repeat(200_000)}`,
    });
    expect((await create(store)).headers.location).toBe(`${long}/pets/1`);
  }, 5000);

  it("answers 500 and tells onError when a request's own public path is not a URL path, after auth only", async () => {
    const errors: unknown[] = [];
    const store = createPetStore({
      storage: arrayStorage(),
      apiKeys: ['test-key-0123456789'],
      hooks: { onError: (event) => errors.push(event.error) },
    });
    const bad = '/v1>; rel="evil", <https://evil.example';
    const res = await create(store, bad);
    expect(res.status).toBe(500);
    expect(res.headers.location).toBeUndefined();
    expect(res.body).not.toContain('evil');
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/TypeError: publicPath must be a URL path/);
    const list = await store.handle({
      method: 'GET',
      path: '/pets',
      headers: auth,
      publicPath: bad,
    });
    expect(list.status).toBe(500);
    // Nothing was created by the refused request.
    const page = await store.handle({ method: 'GET', path: '/pets', headers: auth });
    expect(page.body).toBe('[]');
    // Unauthenticated: the base path is never looked at.
    errors.length = 0;
    const anonymous = await store.handle({
      method: 'GET',
      path: '/pets/1',
      headers: {},
      publicPath: bad,
    });
    expect(anonymous.status).toBe(401);
    expect(errors).toEqual([]);
  });

  it('takes { id, key } entries and refuses unusable ones', () => {
    const make = (apiKeys: unknown) =>
      createPetStore({ storage: arrayStorage(), apiKeys: apiKeys as string[] });
    const k1 = 'first-key-0123456789';
    const k2 = 'second-key-0123456789';
    expect(() => make([{ id: 'a', key: k1 }, k2])).not.toThrow();
    expect(() => make([{ id: '', key: k1 }])).toThrow(/entry 1 needs a non-empty string `id`/);
    expect(() => make([{ id: 'a', key: '' }])).toThrow(/entry 1 must be a non-empty string/);
    expect(() => make([k1, { id: 'b', key: k1 }])).toThrow(
      /entry 2 repeats a key under another id/,
    );
    expect(() =>
      make([
        { id: 'a', key: k1 },
        { id: 'a', key: k1 },
      ]),
    ).not.toThrow();
  });

  it('refuses a verifyTimeoutMs that is not a positive integer timer', () => {
    for (const verifyTimeoutMs of [0, -1, 1.5, 2 ** 31, Number.NaN]) {
      expect(() =>
        createPetStore({ storage: arrayStorage(), verify: () => true, verifyTimeoutMs }),
      ).toThrow(/verifyTimeoutMs/);
    }
  });
});
