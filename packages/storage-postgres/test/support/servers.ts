import { connect, createServer, type Server, type Socket } from 'node:net';

/** Host and port of a PostgreSQL URL, for a proxy in front of it. */
export function addressOf(url: string): [string, number] {
  const { hostname, port } = new URL(url);
  return [hostname, Number(port || 5432)];
}

/** The same URL, reached through a proxy on 127.0.0.1:`port`. */
export function throughProxy(url: string, port: number): string {
  const via = new URL(url);
  via.hostname = '127.0.0.1';
  via.port = String(port);
  return via.href;
}

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
 * `muteAll()` stops carrying bytes either way on every open connection and closes nothing: a
 * network partition, where the client waits for an answer that never comes. Connections made
 * afterwards pass through.
 */
export async function tcpProxy(
  host: string,
  port: number,
): Promise<{ port: number; severAll(): void; muteAll(): void; close(): Promise<void> }> {
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
    muteAll() {
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        // Read and drop, so nothing backs up into the sender's socket.
        client.on('data', () => undefined);
        upstream.on('data', () => undefined);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { client } of pairs) client.destroy();
        server.close(() => resolve());
      }),
  };
}

// ReadyForQuery, idle: the last message of a connection's startup.
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

export interface StartupHoldingProxy {
  readonly port: number;
  /** Settles when the first connection's startup is done on the server, and held back. */
  readonly held: Promise<void>;
  /** Settles when the server has closed that connection. */
  readonly upstreamClosed: Promise<void>;
  /** Sends the client everything held back, in one write, then ends the connection. */
  release(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of `host:port` that holds back the server's bytes from the
 * end of the first connection's startup on, until `release()`. Whatever the server sends
 * meanwhile (a FATAL from pg_terminate_backend, say) then reaches the client in the same read
 * as its ReadyForQuery, as it does from a busy client process that reads its socket late.
 * Later connections pass straight through.
 */
export async function startupHoldingProxy(
  host: string,
  port: number,
): Promise<StartupHoldingProxy> {
  const sockets = new Set<Socket>();
  const heldBytes: Buffer[] = [];
  let holding: Socket | undefined;
  let first = true;
  let onHeld = (): void => undefined;
  let onClosed = (): void => undefined;
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  const upstreamClosed = new Promise<void>((resolve) => (onClosed = resolve));
  const server = await listen(
    createServer((client) => {
      const upstream = connect(port, host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
      }
      client.pipe(upstream);
      client.on('close', () => upstream.destroy());
      if (!first) {
        upstream.pipe(client);
        return;
      }
      first = false;
      upstream.on('data', (chunk: Buffer) => {
        if (holding !== undefined) {
          heldBytes.push(chunk);
          return;
        }
        const at = chunk.indexOf(READY_FOR_QUERY);
        if (at === -1) {
          client.write(chunk);
          return;
        }
        holding = client;
        heldBytes.push(chunk);
        onHeld();
      });
      upstream.on('close', () => onClosed());
    }),
  );
  return {
    port: portOf(server),
    held,
    upstreamClosed,
    release() {
      holding?.end(Buffer.concat(heldBytes));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
