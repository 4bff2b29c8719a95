import { createPetStore } from '@petstore/core';
import { HOSTS, type Host } from '@petstore/matrix/hosts';
import { type Runtime, runtimeBinary, startRuntime } from '@petstore/runtimes/runtime';
import { createMemoryStorage } from '@petstore/storage-memory';
import { BASE } from './requests.js';
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
      const running = await listen(store, { mountPath: BASE });
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

/** The fetch adapter on a runtime (Bun, Deno, workerd), mounted at /v1 with a fresh memory store. */
export function runtimeHost(runtime: Runtime): FuzzHost {
  return {
    name: runtime,
    async start() {
      const running = await startRuntime(runtime);
      const setup = { mountPath: BASE, apiKeys: [FUZZ_KEY], storage: { kind: 'memory' } };
      const ready = await fetch(`${running.origin}/__harness/setup`, {
        method: 'POST',
        body: JSON.stringify(setup),
      });
      if (!ready.ok) throw new Error(`${runtime}: setup answered ${ready.status}`);
      return { port: Number(new URL(running.origin).port), close: () => running.stop() };
    },
  };
}

/** Every runtime whose binary is installed (all of them on linux-x64, the CI's platform). */
export function runtimeHosts(names?: readonly string[]): FuzzHost[] {
  return (['bun', 'deno', 'workerd'] as const)
    .filter((runtime) => names === undefined || names.includes(runtime))
    .filter((runtime) => !('missing' in runtimeBinary(runtime)))
    .map(runtimeHost);
}
