import { runAdapterScenarios, runConformance } from '@petstore/conformance';
import { DEFAULT_API_PATH } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { describe } from 'vitest';
import { HOSTS, type Host, type HostName } from './hosts.js';
import { MATRIX } from './matrix.js';
import { STORAGES, type StorageKind, type StorageName } from './storages.js';

/** The whole conformance suite through one host over one storage kind. */
export function runConformanceOn(hostName: HostName, storageName: StorageName): void {
  const host: Host = HOSTS[hostName];
  const kind: StorageKind = STORAGES[storageName];
  const name = `${host.name} over ${kind.name}`;
  describe.skipIf(kind.unavailable?.() !== undefined)(name, () => {
    runConformance({
      name,
      storage: kind.open(hostName.replaceAll('-', '_')),
      serve: (store) => host.serve(store, { mountPath: DEFAULT_API_PATH }),
      knownDifferences: host.knownDifferences,
    });
  });
}

/**
 * Everything the matrix runs for one host: the conformance suite over each of its storages,
 * then, over a socket, the adapter scenarios at each mount prefix. One test file per host.
 */
export function runHost(hostName: HostName): void {
  for (const storageName of MATRIX[hostName]) runConformanceOn(hostName, storageName);
  const host: Host = HOSTS[hostName];
  const { listen, listenNested } = host;
  if (listen === undefined) return;
  runAdapterScenarios({
    name: host.name,
    storage: () => createMemoryStorage(),
    mount: (store, prefix) => listen(store, { mountPath: prefix }),
    mountBehindProxy: (store, prefix, publicPath) =>
      listen(store, { mountPath: prefix, publicPath }),
    ...(listenNested === undefined ? {} : { mountNested: listenNested }),
  });
}
