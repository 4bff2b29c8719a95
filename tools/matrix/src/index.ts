export { HOSTS, type Host, type HostName, type Mount } from './hosts.js';
export { MATRIX } from './matrix.js';
export { runConformanceOn, runHost } from './run.js';
export { STORAGES, type StorageKind, type StorageName } from './storages.js';
