import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long, and how much, a closing connection goes on reading what its client still sends. */
export interface LingerLimits {
  /** Milliseconds from the close until the socket is destroyed anyway. */
  readonly ms: number;
  /** Bytes read and thrown away before the socket is destroyed anyway. */
  readonly bytes: number;
}

/**
 * nginx reads for up to 30 s (`lingering_time`); a client that got its answer stops sending
 * within a round trip, so 2 s is plenty. The bytes cover what a fast client has in flight when
 * the answer reaches it (the kernel's buffers on both sides, a few MiB).
 */
export const LINGER_LIMITS: LingerLimits = { ms: 2000, bytes: 8 * 1024 * 1024 };

const lingering = new WeakSet<Socket>();

/**
 * Ends `socket` the way nginx's lingering close does: the answer already written goes out, then
 * our side ends (FIN), and whatever the client still sends is read and thrown away until it ends
 * its side, or `limits` run out; then the socket is destroyed. A socket closed at once with
 * unread bytes (the rest of a body answered 413, 401 or 415 before it was read) makes the
 * kernel reset the connection, and a client still writing that body (Node's `fetch`) then fails
 * with EPIPE before it reads the answer it already has.
 *
 * What arrives meanwhile is never parsed as a request: the HTTP parser's `data` listeners are
 * taken off, so nothing sent after the answer is acted on.
 */
export function lingeringClose(socket: Socket, limits: LingerLimits = LINGER_LIMITS): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  let read = 0;
  const timer = setTimeout(() => socket.destroy(), limits.ms);
  timer.unref();
  const discard = (chunk: Buffer): void => {
    read += chunk.byteLength;
    if (read > limits.bytes) socket.destroy();
  };
  // Adding a `data` listener also takes the socket back from the parser's native reads.
  socket.on('data', discard);
  for (const listener of socket.listeners('data')) {
    if (listener !== discard) socket.off('data', listener as (...args: unknown[]) => void);
  }
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.on('error', () => socket.destroy());
  socket.end();
  socket.resume();
}

/** What `destroySoon` was before `lingerOnClose` replaced it, per socket. */
type Closable = Socket & { destroySoon?: () => void };

/**
 * Makes the close Node's HTTP server ends a `Connection: close` exchange with
 * (`socket.destroySoon()`, after the answer is written) a lingering one (`lingeringClose`).
 */
export function lingerOnClose(socket: Socket, limits: LingerLimits = LINGER_LIMITS): void {
  const closable = socket as Closable;
  if (typeof closable.destroySoon !== 'function') return;
  closable.destroySoon = () => lingeringClose(socket, limits);
}

/** `lingerOnClose` for every connection `server` accepts from now on. */
export function lingerOnCloseAll(server: Server, limits: LingerLimits = LINGER_LIMITS): void {
  server.on('connection', (socket: Socket) => lingerOnClose(socket, limits));
}
