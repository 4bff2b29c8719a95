import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { isIPv6, type Socket } from 'node:net';

export interface AddressLimits {
  /** Open connections one client (an address, or an IPv6 prefix) may hold; more are refused. */
  readonly maxConnectionsPerAddress: number;
  /** Exempt addresses (the load balancer's): every connection behind it comes from it. */
  readonly trustedProxies: readonly string[];
  /** A connection that has sent no byte within this is closed. */
  readonly firstByteTimeoutMs: number;
  /**
   * IPv6 clients are counted by this prefix: one host is given a /64 (2^64 addresses), so its
   * addresses count as one client. Default 64; 128 counts each address apart.
   */
  readonly ipv6PrefixLength?: number | undefined;
}

/** Told of each connection refused for its client's count. */
export type OnRefused = (client: string) => void;

/**
 * How long a refused connection may still send (read away) before it is closed, so a client
 * that wrote its request meanwhile still reads the answer; and how many may wait so at once:
 * they count against the listener's MAX_CONNECTIONS, so a flood of them must not fill it.
 */
const REFUSED_LINGER_MS = 250;
const REFUSED_LINGERING_MAX = 32;
const RETRY_AFTER_SECONDS = 1;

/** The 16 bytes of an IPv6 address, from its text. */
function ipv6Bytes(address: string): Uint8Array {
  const [head = '', tail] = address.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const known = [...groups(head), ...groups(tail)];
  const missing = tail === undefined ? 0 : 8 - known.length;
  const words = [...groups(head), ...Array<string>(missing).fill('0'), ...groups(tail)];
  const bytes = new Uint8Array(16);
  words.slice(0, 8).forEach((word, index) => {
    const value = Number.parseInt(word || '0', 16);
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}

/**
 * The client a connection is counted against: an IPv4 address (also written IPv4-mapped,
 * `::ffff:1.2.3.4`) as it is, an IPv6 address by its first `prefixLength` bits.
 */
export function clientOf(address: string, prefixLength = 64): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return mapped[1] ?? address;
  if (!isIPv6(address) || prefixLength >= 128) return address;
  const bytes = ipv6Bytes(address.split('%')[0] ?? address);
  for (let bit = prefixLength; bit < 128; bit++) {
    const byte = bit >> 3;
    bytes[byte] = (bytes[byte] ?? 0) & ~(0x80 >> (bit & 7));
  }
  const words = Array.from({ length: 8 }, (_, i) =>
    (((bytes[i * 2] ?? 0) << 8) | (bytes[i * 2 + 1] ?? 0)).toString(16),
  );
  return `${words.join(':')}/${prefixLength}`;
}

const TOO_MANY = 'Too many connections from your address; retry after Retry-After seconds.';

/** The answer a refused connection gets before any byte is read: short, JSON, then closed. */
function refusal(message: string, retryAfterSeconds: number): Buffer {
  const body = JSON.stringify({ code: 'service_unavailable', message, status: 503 });
  return Buffer.from(
    'HTTP/1.1 503 Service Unavailable\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `Retry-After: ${retryAfterSeconds}\r\n` +
      'Cache-Control: no-store\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      `X-Request-Id: ${randomUUID()}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

/** How many refused sockets are reading away what their clients send (see `refuse`). */
export interface Lingering {
  count: number;
}

/**
 * Writes a JSON 503 with `Retry-After` and closes, before the HTTP parser sees the socket; what
 * the client sends meanwhile is read away, not parsed. Past `REFUSED_LINGERING_MAX` refusals
 * waiting at once, a refused socket closes once written.
 */
export function refuse(
  socket: Socket,
  lingering: Lingering,
  message = TOO_MANY,
  retryAfterSeconds = RETRY_AFTER_SECONDS,
): void {
  const answer = refusal(message, retryAfterSeconds);
  socket.on('error', () => socket.destroy());
  socket.resume();
  if (lingering.count >= REFUSED_LINGERING_MAX) {
    socket.end(answer, () => socket.destroy());
    return;
  }
  lingering.count++;
  socket.once('close', () => lingering.count--);
  socket.end(answer);
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
}

/**
 * Fairness between clients on one listener: one client cannot hold more than its share of
 * `maxConnections` (a flood of idle sockets from one host leaves room for everyone else), and
 * a socket that never sends a byte is closed after `firstByteTimeoutMs` instead of holding its
 * place until the headers timeout. A connection past a client's share is answered a JSON 503
 * with `Retry-After` at once, before the HTTP parser sees it, then closed. Returns the count
 * per client, for tests and metrics.
 */
export function limitConnectionsPerAddress(
  server: Server,
  limits: AddressLimits,
  onRefused?: OnRefused,
): ReadonlyMap<string, number> {
  const open = new Map<string, number>();
  const trusted = new Set(limits.trustedProxies);
  const lingering = { count: 0 };
  // The HTTP server's own listener (its parser) runs only for connections let in.
  const http = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    if (!trusted.has(address)) {
      const client = clientOf(address, limits.ipv6PrefixLength);
      const count = open.get(client) ?? 0;
      if (count >= limits.maxConnectionsPerAddress) {
        refuse(socket, lingering);
        onRefused?.(client);
        return;
      }
      open.set(client, count + 1);
      socket.once('close', () => {
        const left = (open.get(client) ?? 1) - 1;
        if (left === 0) open.delete(client);
        else open.set(client, left);
      });
    }
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.firstByteTimeoutMs);
    silent.unref();
    socket.once('close', () => clearTimeout(silent));
    for (const listener of http) listener.call(server, socket);
  });
  return open;
}
