import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { targetPath } from '@petstore/core';
import { lingerOnCloseAll } from '@petstore/node';
import { createLimitedServer } from './connection-limits.js';
import { type HostRoute, type HostRoutes, writeHostAnswer } from './host-routes.js';

/** Where probes and scrapes go: connections of their own, never competing with API traffic. */
export interface ManagementListener {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

// Probes and scrapes are few and quick: generous for them, small next to the API's limits. An
// orchestrator's probes and a scraper hold a few connections per address; with 256 per address,
// 260 slow-header sockets from one address took them all and 40 of 46 probes from another got
// no answer (issue 40): 16 leaves the rest to everyone else.
const MANAGEMENT_LIMITS = {
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
  maxConnectionsPerAddress: 16,
  trustedProxies: [],
  firstByteTimeoutMs: 5_000,
} as const;

/**
 * Serves `routes` (GET and HEAD; `/healthz`, `/readyz`, `/metrics`) on `host:port`, every other
 * request the JSON 404; no body is ever read. Rejects when the port cannot be bound.
 */
export async function startManagementListener(
  routes: readonly HostRoute[],
  host: HostRoutes,
  where: { readonly host: string; readonly port: number },
): Promise<ManagementListener> {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const server: Server = createLimitedServer(MANAGEMENT_LIMITS);
  // A body sent here is not read: the close lingers, so its sender still reads the answer.
  lingerOnCloseAll(server);
  server.on('request', (req, res) => {
    const method = req.method ?? '-';
    // As every host reads a target (core's rule); what is no path is nobody's route.
    const target = req.url ?? '/';
    const path = targetPath(target) ?? target;
    const route = method === 'GET' || method === 'HEAD' ? byPath.get(path) : undefined;
    // A body sent here is never read: the connection closes after the answer instead.
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding']) {
      res.setHeader('connection', 'close');
    }
    Promise.resolve(
      route === undefined
        ? host.notFound(method, path, req.headers['x-request-id'])
        : route.answer({ method, path, headers: req.headers }),
    ).then(
      (answer) => writeHostAnswer(res, answer),
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    throw new Error(
      `cannot listen on MANAGEMENT_HOST:MANAGEMENT_PORT (${where.host}:${where.port}): ${error.code ?? error.message}; set MANAGEMENT_PORT to a free port, or off`,
      { cause: error },
    );
  });
  return {
    address: server.address() as AddressInfo,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
