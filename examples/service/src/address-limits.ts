import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface AddressLimits {
  /** Open connections one remote address may hold; more are closed as soon as accepted. */
  readonly maxConnectionsPerAddress: number;
  /** Exempt addresses (the load balancer's): every connection behind it comes from it. */
  readonly trustedProxies: readonly string[];
  /** A connection that has sent no byte within this is closed. */
  readonly firstByteTimeoutMs: number;
}

/**
 * Fairness between clients on one listener: one address cannot hold more than its share of
 * `maxConnections` (a flood of idle sockets from one host leaves room for everyone else), and
 * a socket that never sends a byte is closed after `firstByteTimeoutMs` instead of holding its
 * place until the headers timeout. Returns the count per address, for tests and metrics.
 */
export function limitConnectionsPerAddress(
  server: Server,
  limits: AddressLimits,
): ReadonlyMap<string, number> {
  const open = new Map<string, number>();
  const trusted = new Set(limits.trustedProxies);
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (!trusted.has(address)) {
      const count = open.get(address) ?? 0;
      if (count >= limits.maxConnectionsPerAddress) {
        socket.destroy();
        return;
      }
      open.set(address, count + 1);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left === 0) open.delete(address);
        else open.set(address, left);
      });
    }
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.firstByteTimeoutMs);
    silent.unref();
    socket.once('close', () => clearTimeout(silent));
  });
  return open;
}
