/**
 * A counting TCP proxy on 127.0.0.1 in front of PostgreSQL: bytes each way and round trips (a
 * turn of the conversation: the client speaks, then the server answers; a pipelined
 * Parse/Bind/Execute/Sync is one). Used only for the per-request wire figures of section 4,
 * never in the timed rounds: it adds a hop.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface WireCounts {
  readonly bytesToDatabase: number;
  readonly bytesFromDatabase: number;
  readonly roundTrips: number;
}

export interface WireCounter {
  /** The database URL with its host and port swapped for the proxy's. */
  readonly url: string;
  /** The counts since the last reset, then zero. */
  take(): WireCounts;
  close(): Promise<void>;
}

/** Pipes one client connection to the database, counting as it goes. */
function relay(client: Socket, target: URL, counts: { up: number; down: number; turns: number }) {
  const server = connect(Number(target.port || 5432), target.hostname);
  let speaking: 'client' | 'server' = 'server';
  client.on('data', (chunk: Buffer) => {
    counts.up += chunk.byteLength;
    if (speaking === 'server') counts.turns += 1;
    speaking = 'client';
    server.write(chunk);
  });
  server.on('data', (chunk: Buffer) => {
    counts.down += chunk.byteLength;
    speaking = 'server';
    client.write(chunk);
  });
  const end = () => {
    client.destroy();
    server.destroy();
  };
  client.on('close', end).on('error', end);
  server.on('close', end).on('error', end);
}

export async function startWireCounter(databaseUrl: string): Promise<WireCounter> {
  const target = new URL(databaseUrl);
  if (target.hostname !== '127.0.0.1' && target.hostname !== 'localhost')
    throw new Error(`the wire counter only fronts 127.0.0.1, not ${target.hostname}`);
  const counts = { up: 0, down: 0, turns: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    relay(client, target, counts);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy port');
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    take() {
      const taken = {
        bytesToDatabase: counts.up,
        bytesFromDatabase: counts.down,
        roundTrips: counts.turns,
      };
      counts.up = 0;
      counts.down = 0;
      counts.turns = 0;
      return taken;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
