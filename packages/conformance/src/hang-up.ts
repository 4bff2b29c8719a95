import { connect } from 'node:net';

/** Polls until `done()` or `ms` have passed (hooks run after the socket closed). */
export async function waitUntil(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

/**
 * Sends `POST <path>` with headers and half of a 100-byte body over a raw socket (request id
 * `gone-1`), then hangs up once `when` settles: a client that went away mid-upload.
 */
export async function hangUpMidBody(
  origin: string,
  when: Promise<unknown>,
  { apiKey, path = '/v1/pets' }: { readonly apiKey: string; readonly path?: string },
): Promise<void> {
  const socket = connect(Number(new URL(origin).port), '127.0.0.1');
  socket.on('error', () => {});
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 100\r\nX-Request-Id: gone-1\r\n\r\n{"name":"Half a',
  );
  await when;
  await new Promise<void>((resolve) => socket.destroy().once('close', () => resolve()));
}
