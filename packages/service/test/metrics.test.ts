import { createPetStore, type PetStoreOptions } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { describe, expect, it } from 'vitest';
import { createMetrics, withMetrics } from '../src/metrics.js';

const KEY = 'metrics-shed-key-0123456789';
const list = { method: 'GET', path: '/pets', headers: { authorization: `Bearer ${KEY}` } };

/** The samples of one metric in the text format, `name{labels} value` lines. */
const samples = (text: string, name: string): string[] =>
  text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

describe('the metrics of shed requests', () => {
  it('counts them in petstore_requests_shed_total by reason, not as storage outages', async () => {
    const metrics = createMetrics();
    const make = (loadShedding: PetStoreOptions['loadShedding']) =>
      createPetStore({
        storage: createMemoryStorage(),
        apiKeys: [KEY],
        // Any heap is over one byte: every request is shed, at once.
        loadShedding,
        hooks: withMetrics({}, metrics),
      });
    const full = make({ maxEventLoopDelayMs: 0, maxHeapUsedBytes: 1 });
    const fine = make(false);
    expect((await full.handle(list)).status).toBe(503);
    expect((await full.handle(list)).status).toBe(503);
    expect((await fine.handle(list)).status).toBe(200);

    const { body } = await metrics.scrape();
    expect(samples(body, 'petstore_requests_shed_total')).toEqual([
      'petstore_requests_shed_total{reason="heap_used"} 2',
    ]);
    expect(samples(body, 'petstore_storage_unavailable_total')).toEqual([]);
    // Still requests answered: no operation (shed before routing), status 503.
    expect(samples(body, 'petstore_http_requests_total')).toEqual([
      'petstore_http_requests_total{operation="none",status="503"} 2',
      'petstore_http_requests_total{operation="listPets",status="200"} 1',
    ]);
  });

  it('counts requests shed for maxInFlight under the reason in_flight', async () => {
    const metrics = createMetrics();
    const storage = createMemoryStorage();
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const store = createPetStore({
      storage: {
        ...storage,
        listPets: async (query) => {
          await gate;
          return storage.listPets(query);
        },
      },
      apiKeys: [KEY],
      loadShedding: { maxEventLoopDelayMs: 0, maxInFlight: 1 },
      hooks: withMetrics({}, metrics),
    });
    const held = store.handle(list);
    expect((await store.handle(list)).status).toBe(503);
    open();
    expect((await held).status).toBe(200);

    const { body } = await metrics.scrape();
    expect(samples(body, 'petstore_requests_shed_total')).toEqual([
      'petstore_requests_shed_total{reason="in_flight"} 1',
    ]);
    expect(samples(body, 'petstore_storage_unavailable_total')).toEqual([]);
  });
});
