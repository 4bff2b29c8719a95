export { wholeNumber } from './args.js';
export {
  type Cluster,
  type ClusterOptions,
  freePort,
  type NodeMember,
  type PatroniNode,
  petCount,
  startCluster,
  takeClusterLock,
  until,
} from './cluster.js';
export { type Fleet, type FleetOptions, type FleetPlacement, KEY, startFleet } from './fleet.js';
export { type Bouncer, startBouncer } from './pgbouncer.js';
export {
  type ClusterPlacement,
  HERE,
  launch,
  type NodePlace,
  type Place,
  type RunAs,
} from './placement.js';
export { HAPROXY, missingTools, toolsPresent } from './tools.js';
