import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { type Lingering, refuse } from './address-limits.js';

export interface ShedAtAcceptOptions {
  /** Why a request arriving now would be shed (core's `shedding(store)`), or undefined. */
  readonly shedding: () => string | undefined;
  /** The shed answer's `Retry-After` (LOAD_SHEDDING_RETRY_AFTER_SECONDS). */
  readonly retryAfterSeconds: number;
  /**
   * Addresses let in anyway (TRUSTED_PROXIES): a balancer's connections carry its health checks,
   * which must reach `/readyz`, and its queue already refuses what an instance cannot take.
   */
  readonly trustedProxies: readonly string[];
  /** Told of each connection refused. */
  readonly onRefused?: (() => void) | undefined;
}

/**
 * While the store sheds load, a new connection is answered the shed 503 (JSON, `Retry-After`)
 * as it is accepted and closed, before the HTTP parser runs: its request would be shed anyway,
 * and refusing it here costs about a third of reading it first (the bench's section 8, "the cost
 * of a refusal"). Connections already open are left alone: their requests are shed by the core,
 * a keep-alive connection being cheaper to answer on than a new one. So while shedding, a new
 * connection's `/healthz` on this port is refused too: probes belong on the management port.
 * Call it last, once every other `connection` listener is on the server: they run only for the
 * connections let in.
 */
export function shedAtAccept(server: Server, options: ShedAtAcceptOptions): void {
  const lingering: Lingering = { count: 0 };
  const trusted = new Set(options.trustedProxies);
  const others = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    if (!trusted.has(socket.remoteAddress ?? '') && options.shedding() !== undefined) {
      refuse(
        socket,
        lingering,
        'The pet store is overloaded; retry later.',
        options.retryAfterSeconds,
      );
      options.onRefused?.();
      return;
    }
    for (const listener of others) listener.call(server, socket);
  });
}
