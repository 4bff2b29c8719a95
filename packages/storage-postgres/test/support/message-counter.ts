import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of PostgreSQL that counts what clients send, by protocol
 * message type: `P` Parse, `B` Bind, `E` Execute, `Q` simple Query, `S` Sync. Each connection's
 * first message (startup: a length, no type byte) is skipped; messages are read across chunks.
 * Only the client's side is read, and nothing is changed.
 */
export async function messageCounter(
  host: string,
  port: number,
): Promise<{ port: number; take(): Record<string, number>; close(): Promise<void> }> {
  let counts: Record<string, number> = {};
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let started = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const typed = started ? 1 : 0;
        if (pending.length < typed + 4) break;
        const length = pending.readInt32BE(typed) + typed;
        if (pending.length < length) break;
        if (started) {
          const type = String.fromCharCode(pending[0] ?? 0);
          counts[type] = (counts[type] ?? 0) + 1;
        }
        started = true;
        pending = pending.subarray(length);
      }
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    take() {
      const taken = counts;
      counts = {};
      return taken;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
