import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { shedding } from '@petstore/core';
import { continueWhenRead, installClientErrorHandler } from '@petstore/node';
import { createLimitedServer } from './connection-limits.js';
import { type Connections, trackConnections } from './connections.js';
import { frontDoor } from './front-door.js';
import { hostRouteTable } from './host-routes.js';
import { logRequest } from './logging.js';
import type { ServiceParts, Serving } from './service.js';
import { shedAtAccept } from './shed-at-accept.js';
import type { Drain } from './shutdown.js';

export interface HttpService {
  /** The Node server, with the service's limits: hand it to the framework (hapi's `listener`). */
  readonly server: Server;
  /**
   * Call once the framework has attached its listeners to `server`: puts the front door (target
   * check, host routes, JSON 404) before its `request` and `checkContinue` listeners, and our
   * parser-error answers in place of any `clientError` listener.
   */
  guard(): void;
  /** Listens on the configured host and port (when the framework does not). */
  listen(): Promise<AddressInfo>;
  /** Stops accepting, closes idle connections at once, waits for requests in flight. */
  readonly drain: Drain;
}

/**
 * The HTTP side every app shares (the bin and both example apps); the framework only ever sees
 * the API's requests, below `parts.mountPath`.
 */
export function createHttpService(
  parts: Pick<
    ServiceParts,
    | 'config'
    | 'store'
    | 'mountPath'
    | 'host'
    | 'docs'
    | 'logger'
    | 'stopping'
    | 'preempted'
    | 'tracing'
    | 'metrics'
  >,
): HttpService {
  const { config, store, mountPath, host, docs, logger, stopping, preempted, tracing, metrics } =
    parts;
  const refused = metrics && (() => metrics.connectionRefused());
  const server = createLimitedServer(config, refused);
  const connections = trackConnections(server);
  // Last of the connection listeners: a connection refused while shedding is nobody else's.
  shedAtAccept(server, {
    shedding: () => shedding(store),
    retryAfterSeconds: config.loadShedding.retryAfterSeconds,
    trustedProxies: config.trustedProxies,
    onRefused: refused,
  });
  const door = (api: RequestListener) =>
    frontDoor(
      {
        mountPath,
        routes: hostRouteTable(host, docs, logger, config.metricsOnApiPort),
        host,
        logger,
        connections,
        stopping,
        preempted,
        tracing,
      },
      api,
    );

  return {
    server,
    guard() {
      const taken = (event: 'request' | 'checkContinue'): RequestListener[] => {
        const listeners = server.listeners(event) as RequestListener[];
        server.removeAllListeners(event);
        return listeners;
      };
      const [request, ...moreRequest] = taken('request');
      const moreContinue = taken('checkContinue');
      if (request === undefined || moreRequest.length > 0 || moreContinue.length > 1) {
        throw new Error('expected the framework to attach one request listener');
      }
      server.on('request', door(request));
      // Node (or hapi's own listener) would send `100 Continue` before any handler ran, even
      // for a request refused unread: it goes out only when the API reads the body, after
      // authentication. The framework's `checkContinue` listener is not used for that reason.
      server.on(
        'checkContinue',
        door((req, res) => {
          continueWhenRead(req, res);
          request(req, res);
        }),
      );
      // What Node's parser refuses, a bad Expect, CONNECT, a missing Host: the Error body, logged.
      installClientErrorHandler(server, {
        onClientError: ({ method, status, requestId, reason }) =>
          logRequest(logger, {
            method,
            route: undefined,
            status,
            durationMs: 0,
            requestId,
            reason,
          }),
      });
      // Errors while listening reject `listen` (or hapi's start); any later one is logged, not fatal.
      server.on('error', (error) => {
        if (server.listening) logger.error({ err: error }, 'server error');
      });
    },
    listen: () =>
      new Promise<AddressInfo>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      }),
    drain: drainHttpServer(server, connections),
  };
}

/** A `Drain` for a Node HTTP server whose connections are tracked. */
export function drainHttpServer(server: Server, connections: Connections): Drain {
  return (timeoutMs, refusing) =>
    new Promise<void>((resolve) => {
      // Whatever still runs after the grace period loses its connection.
      const deadline = setTimeout(() => connections.closeAll(), timeoutMs);
      server.close(() => {
        clearTimeout(deadline);
        resolve();
      });
      // After close(): from here on, new connections are refused.
      connections.closeIdle();
      refusing();
    });
}

/**
 * `runService(serveListener(listenerOf))`: the whole `serve` step for a framework that is a Node
 * request listener (Express, `@petstore/node`): the shared server, the framework behind the
 * front door, listening.
 */
export function serveListener(
  listenerOf: (parts: ServiceParts) => RequestListener,
): (parts: ServiceParts) => Promise<Serving> {
  return async (parts) => {
    const http = createHttpService(parts);
    http.server.on('request', listenerOf(parts));
    http.guard();
    return { address: await http.listen(), drain: http.drain };
  };
}
