// A process of its own (load-shedding.test.ts): a store with load shedding on serves a request,
// sheds one after a held event loop, prints the statuses, and then has nothing left to do. It
// must exit by itself: no timer of the store may be left to keep it alive.
import { createPetStore } from '../../src/index.js';
import { arrayStorage } from './array-storage.js';

const KEY = 'idle-test-key-0123456789';
const store = createPetStore({
  storage: arrayStorage(),
  apiKeys: [KEY],
  loadShedding: { maxEventLoopDelayMs: 100, maxHeapUsedBytes: Number.MAX_SAFE_INTEGER },
});
const list = { method: 'GET', path: '/pets', headers: { authorization: `Bearer ${KEY}` } };

const served = await store.handle(list);
const end = performance.now() + 300;
while (performance.now() < end) {
  // hold the loop past the limit
}
const shed = await store.handle(list);
console.log(`answered ${served.status} ${shed.status}`);
