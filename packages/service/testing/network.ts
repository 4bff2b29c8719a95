import { connect, createServer, type Server, type Socket } from 'node:net';

export { createTestDatabase, type TestDatabase } from '@petstore/test-postgres';

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no port'));
      else resolve(address.port);
    });
  });
}

/** A port on 127.0.0.1 where nothing listens: connections are refused. */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server, 0);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface TcpProxy {
  readonly port: number;
  /** An outage: stops listening and cuts every connection through it. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP relay on 127.0.0.1 to `target`: put between an app and its database, it makes the
 * database unreachable on demand, while the database itself keeps running for other tests.
 */
export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const relay = (client: Socket): void => {
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  let server = createServer(relay);
  const port = await listen(server, 0);
  const cut = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    port,
    cut,
    restore: async () => {
      server = createServer(relay);
      await listen(server, port);
    },
    close: () => (server.listening ? cut() : Promise.resolve()),
  };
}
