import { connect, createServer, type Server, type Socket } from 'node:net';

/** A port on 127.0.0.1 where nothing listens (connections are refused). */
export async function refusedPort(): Promise<number> {
  const server = await listen(createServer());
  const port = portOf(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server on 127.0.0.1 that accepts connections and never says a word. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = await listen(
    createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }),
  );
  return {
    port: portOf(server),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function listen(server: Server): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * A TCP proxy on 127.0.0.1 in front of `host:port`. `severAll()` drops the upstream side of
 * every open connection without telling the client: to the client, its connection still looks
 * alive until it next writes, which is then answered by a reset. That is what a pooled
 * connection looks like after the server lost it without a goodbye (a crash, a failover).
 */
export async function tcpProxy(
  host: string,
  port: number,
): Promise<{ port: number; severAll(): void; close(): Promise<void> }> {
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const server = await listen(
    createServer((client) => {
      const upstream = connect(port, host);
      const pair = { client, upstream };
      pairs.add(pair);
      client.on('error', () => undefined);
      upstream.on('error', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => {
        upstream.destroy();
        pairs.delete(pair);
      });
    }),
  );
  return {
    port: portOf(server),
    severAll() {
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        upstream.destroy();
        // The next bytes the client sends are met with a reset.
        client.once('data', () => client.resetAndDestroy());
        client.resume(); // unpipe() paused it
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client } of pairs) client.destroy();
        server.close(() => resolve());
      }),
  };
}
