import { createServer, type Server } from 'node:http';
import { serializePipelinedRequests } from '@petstore/node';
import {
  type AddressLimits,
  limitConnectionsPerAddress,
  type OnRefused,
} from './address-limits.js';
import type { AppConfig } from './config.js';

export type ConnectionLimits = Pick<
  AppConfig,
  'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections'
> &
  AddressLimits;

/** How often Node looks for requests past their timeouts: at most 1 s late, sooner for short ones. */
const checkingIntervalMs = ({ headersTimeoutMs }: ConnectionLimits): number =>
  Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4)));

/**
 * A Node HTTP server with the service's limits, and no listeners yet: both apps serve from one
 * of these (hapi takes it as its `listener`), so the limits are the same whatever the framework.
 * A slow client is cut when its headers take longer than `headersTimeoutMs` or its whole request
 * longer than `requestTimeoutMs` (answered 408 when an answer can still be written); a silent
 * one after `firstByteTimeoutMs`; one client holds at most `maxConnectionsPerAddress` (past it,
 * a JSON 503 at once, and `onRefused` is told); pipelined requests are served one at a time per
 * connection, so a deep pipeline cannot hold the event loop (@petstore/node).
 */
export function createLimitedServer(limits: ConnectionLimits, onRefused?: OnRefused): Server {
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node's default is 30 s, far too coarse for a 10 s headers timeout.
    connectionsCheckingInterval: checkingIntervalMs(limits),
    // Node would answer a missing Host with an empty 400 itself; the front door answers it.
    requireHostHeader: false,
  });
  server.maxConnections = limits.maxConnections;
  limitConnectionsPerAddress(server, limits, onRefused);
  serializePipelinedRequests(server);
  // Node's own idle-socket timeout is off (0) by default; the two limits above cover requests.
  return server;
}
