import type { HostName } from './hosts.js';
import type { StorageName } from './storages.js';

/**
 * The one table of what runs where: for each host, the storages the whole conformance suite
 * runs over. Every host also runs the adapter scenarios (mounting, links, oversized bodies)
 * over memory when it listens on a socket.
 */
export const MATRIX: Readonly<Record<HostName, readonly StorageName[]>> = {
  core: ['memory', 'postgres'],
  express: ['memory', 'postgres', 'pgbouncer'],
  'express-json': ['memory'],
  fastify: ['memory', 'postgres'],
  hapi: ['memory', 'postgres'],
  node: ['memory', 'postgres'],
  connect: ['memory'],
  fetch: ['memory', 'postgres'],
  hono: ['memory', 'postgres'],
};
