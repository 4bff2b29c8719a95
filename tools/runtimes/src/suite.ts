import {
  type AdapterScenarioOptions,
  runAdapterScenarios,
  runConformance,
  type StoreHost,
} from '@petstore/conformance';
import { afterAll, describe } from 'vitest';
import type { Runtime } from './bundle.js';
import { type RuntimeProcess, runtimeBinary, startRuntime } from './runtime.js';
import { memoryStorage, type PrepareStorage, runtimeStoreHost } from './store-host.js';

/**
 * The runtime for one test file, started on first use and stopped after the file. A
 * missing binary (another platform) skips the file with a reason; under CI it fails.
 */
export function runtimeForFile(runtime: Runtime): {
  readonly missing: string | undefined;
  host(prepare: PrepareStorage): StoreHost;
} {
  const found = runtimeBinary(runtime);
  const missing = 'missing' in found ? found.missing : undefined;
  if (missing !== undefined && process.env.CI === 'true') {
    throw new Error(`CI runs the ${runtime} suite, but there is ${missing}`);
  }
  let started: Promise<RuntimeProcess> | undefined;
  afterAll(async () => {
    await (await started?.catch(() => undefined))?.stop();
  });
  return {
    missing,
    host: (prepare) => ({
      async start(setup) {
        started ??= startRuntime(runtime);
        return runtimeStoreHost(await started, prepare).start(setup);
      },
    }),
  };
}

/** What a runtime does below our code that the adapter scenarios check instead. */
export type RuntimeExpectations = Pick<
  Extract<AdapterScenarioOptions, { host: StoreHost }>,
  'oversizedBody'
>;

/**
 * The whole conformance suite against the fetch adapter on `runtime`, over each storage,
 * then the adapter scenarios (mounts, links, oversized bodies) over memory.
 */
export function runConformanceOnRuntime(
  runtime: Runtime,
  storages: Readonly<Record<string, PrepareStorage>>,
  expectations: RuntimeExpectations = {},
): void {
  const file = runtimeForFile(runtime);
  const skipped = file.missing === undefined ? '' : ` (skipped: ${file.missing})`;
  describe.skipIf(file.missing !== undefined)(`${runtime}${skipped}`, () => {
    for (const [name, prepare] of Object.entries(storages)) {
      runConformance({
        name: `fetch handler on ${runtime} over ${name}`,
        host: file.host(prepare),
      });
    }
    runAdapterScenarios({
      name: `fetch handler on ${runtime}`,
      host: file.host(memoryStorage),
      ...expectations,
    });
  });
}
