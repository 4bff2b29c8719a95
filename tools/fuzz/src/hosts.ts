import { createPetStore } from '@petstore/core';
import { HOSTS, type Host } from '@petstore/matrix/hosts';
import { createMemoryStorage } from '@petstore/storage-memory';
import type { FuzzHost } from './run.js';

/** The key every fuzzed store accepts. */
export const FUZZ_KEY = 'differential-fuzz-key-0123456789';

/** A matrix host (mounted at /v1 as its README says) with a fresh memory store. */
export function matrixHost(name: string, host: Host): FuzzHost {
  const { listen } = host;
  if (listen === undefined) throw new Error(`${name} does not listen on a socket`);
  return {
    name,
    async start() {
      const store = createPetStore({ storage: createMemoryStorage(), apiKeys: [FUZZ_KEY] });
      const running = await listen(store, { mountPath: '/v1' });
      return { port: Number(new URL(running.origin).port), close: () => running.close() };
    },
  };
}

/** Every matrix host that listens on a socket; the node:http listener first, as the reference. */
export function matrixHosts(names?: readonly string[]): FuzzHost[] {
  const all = Object.entries(HOSTS as Record<string, Host>).filter(
    ([name, host]) => host.listen !== undefined && (names === undefined || names.includes(name)),
  );
  all.sort(([a], [b]) => (a === 'node' ? -1 : b === 'node' ? 1 : 0));
  return all.map(([name, host]) => matrixHost(name, host));
}
