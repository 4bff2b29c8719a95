import type { HostName } from './hosts.js';
import type { StorageName } from './storages.js';

/**
 * The one table of what runs where: for each host, the storages the whole conformance suite
 * runs over. Every host also runs the adapter scenarios (mounting, links, oversized bodies)
 * over memory when it listens on a socket.
 */
export const MATRIX: Readonly<Record<HostName, readonly StorageName[]>> = {
  core: ['memory', 'postgres', 'sqlite'],
  express: ['memory', 'postgres', 'pgbouncer', 'sqlite'],
  'express-json': ['memory', 'sqlite'],
  fastify: ['memory', 'postgres', 'sqlite'],
  hapi: ['memory', 'postgres', 'sqlite'],
  node: ['memory', 'postgres', 'sqlite'],
  connect: ['memory', 'sqlite'],
  fetch: ['memory', 'postgres', 'sqlite'],
  hono: ['memory', 'postgres', 'sqlite'],
};
