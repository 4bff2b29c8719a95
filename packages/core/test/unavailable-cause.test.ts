import { describe, expect, it } from 'vitest';
import { createPetStore, type ResponseEvent, StorageUnavailableError } from '../src/index.js';
import { arrayStorage } from './support/array-storage.js';

const KEY = 'cause-test-key-0123456789';
const list = { method: 'GET', path: '/pets', headers: { authorization: `Bearer ${KEY}` } };

describe('a 503 tells the host why, never the client', () => {
  it("carries the storage's reason to onResponse, and nothing of it in the answer", async () => {
    const events: ResponseEvent[] = [];
    const storage = arrayStorage();
    const store = createPetStore({
      storage: {
        ...storage,
        listPets: async () => {
          throw new StorageUnavailableError('PostgreSQL is unavailable', { reason: '57P01' });
        },
      },
      apiKeys: [KEY],
      hooks: { onResponse: (event) => events.push(event) },
    });
    const answer = await store.handle(list);
    expect(answer.status).toBe(503);
    expect(answer.body).not.toContain('57P01');
    expect(events.map((event) => event.cause)).toEqual(['57P01']);
  });

  it('says `unavailable` for a storage error without a reason, and `verify` for a failing key check', async () => {
    const events: ResponseEvent[] = [];
    const onResponse = (event: ResponseEvent) => events.push(event);
    const storage = arrayStorage();
    const down = createPetStore({
      storage: {
        ...storage,
        listPets: async () => {
          throw new StorageUnavailableError();
        },
      },
      apiKeys: [KEY],
      hooks: { onResponse },
    });
    await down.handle(list);
    const verifying = createPetStore({
      storage,
      verify: async () => {
        throw new Error('key store down');
      },
      hooks: { onResponse, onError: () => undefined },
    });
    await verifying.handle(list);
    const fine = createPetStore({ storage, apiKeys: [KEY], hooks: { onResponse } });
    await fine.handle(list);
    expect(events.map((event) => [event.status, event.cause])).toEqual([
      [503, 'unavailable'],
      [503, 'verify'],
      [200, undefined],
    ]);
  });
});
