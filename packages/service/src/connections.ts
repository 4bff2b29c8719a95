import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Which connections have a request in flight, so shutdown can close the others at once. */
export interface Connections {
  /** Marks the request's connection busy until its answer is finished or abandoned. */
  busy(req: IncomingMessage, res: ServerResponse): void;
  /**
   * Shutdown: closes every idle connection now (keep-alive ones, and those that never sent a
   * request), and from here on each busy one as soon as its last answer is sent.
   */
  closeIdle(): void;
  /** The shutdown deadline: cuts every connection left. */
  closeAll(): void;
}

/** Ends our side, then destroys the socket once the answer in its buffer is flushed. */
function endSoon(socket: Socket): void {
  if (socket.destroyed) return;
  socket.once('finish', () => socket.destroy());
  socket.end();
}

export function trackConnections(server: Server): Connections {
  /** Requests in flight per open connection. */
  const inFlight = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  return {
    busy(req, res) {
      const socket = req.socket;
      inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
      res.once('close', () => {
        const left = (inFlight.get(socket) ?? 1) - 1;
        if (inFlight.has(socket)) inFlight.set(socket, left);
        if (closing && left === 0) endSoon(socket);
      });
    },
    closeIdle() {
      closing = true;
      for (const [socket, count] of inFlight) if (count === 0) socket.destroy();
    },
    closeAll() {
      closing = true;
      for (const socket of inFlight.keys()) socket.destroy();
    },
  };
}
