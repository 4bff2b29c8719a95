import { describe, expect, it } from 'vitest';
import { createPetStore, type OperationEvent, type PetStoreHooks } from '../src/index.js';
import { arrayStorage } from './support/array-storage.js';

const KEY = 'around-key-0123456789';
const get = (path: string) => ({
  method: 'GET',
  path,
  headers: { authorization: `Bearer ${KEY}`, 'x-request-id': 'r-1' },
});

describe('hooks.aroundOperation', () => {
  it('wraps each operation, storage call included, with its operationId and route', async () => {
    const trail: string[] = [];
    const storage = arrayStorage();
    const store = createPetStore({
      apiKeys: [KEY],
      storage: {
        ...storage,
        listPets: (query) => {
          trail.push('storage');
          return storage.listPets(query);
        },
      },
      hooks: {
        aroundOperation: (event: OperationEvent, run) => {
          trail.push(
            `start ${event.operationId} ${event.method} ${event.route} ${event.requestId}`,
          );
          const result = run();
          if (result instanceof Promise) {
            return result.finally(() => trail.push('end')) as typeof result;
          }
          trail.push('end');
          return result;
        },
      },
    });
    expect((await store.handle(get('/pets'))).status).toBe(200);
    expect(trail).toEqual(['start listPets GET /pets r-1', 'storage', 'end']);
    // No operation, no wrap: a 404 and a 401 are answered without it.
    trail.length = 0;
    expect((await store.handle(get('/nothing'))).status).toBe(404);
    expect((await store.handle({ ...get('/pets'), headers: {} })).status).toBe(401);
    expect(trail).toEqual([]);
  });

  it('a hook that throws before run is reported to onError, and the answer is unchanged', async () => {
    const errors: unknown[] = [];
    const hooks: PetStoreHooks = {
      aroundOperation: () => {
        throw new Error('broken tracer');
      },
      onError: ({ error }) => errors.push(error),
    };
    const store = createPetStore({ apiKeys: [KEY], storage: arrayStorage(), hooks });
    const answer = await store.handle(get('/pets'));
    expect([answer.status, answer.body]).toEqual([200, '[]']);
    expect(errors).toEqual([new Error('broken tracer')]);
  });
});
