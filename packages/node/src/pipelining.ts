import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What node:http keeps on a socket it serves (not in its typings; stable since Node 12). */
interface ServedSocket extends Socket {
  /** Its parser while node:http serves the socket; null once freed (closed, upgraded). */
  parser?: object | null;
  /** The response being written on it, if any. */
  _httpMessage?: ServerResponse | null;
  /** node:http's own pause, while answers pile up unread: it resumes on `drain`. */
  _paused?: boolean;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** The body's length of a request whose head the parser just read, if it has one of known length. */
function contentLength(req: ServerResponse['req'] | undefined): number {
  if (req === undefined || req.complete || req.headers['transfer-encoding'] !== undefined) return 0;
  const length = Number(req.headers['content-length']);
  return Number.isSafeInteger(length) && length > 0 ? length : 0;
}

/**
 * Pipelined requests one at a time per connection, as HAProxy serialises them: the bytes after a
 * request are given to node:http's parser only once that request's answer is written, and each
 * next request waits a turn of the event loop. Without it, node:http parses every request of a
 * read in one go and runs them all in the same loop turn: 64 connections each carrying 500
 * pipelined requests without a key (36 bytes each) held a server's loop for over a second, shed
 * everybody's requests and made another client wait seconds. With it, a loop turn serves at most
 * one request per connection, so a deep pipeline costs its own connection time, not everyone's.
 *
 * Call it once on a `node:http` server (the one Express's `app.listen()`, Fastify's `app.server`
 * or hapi's `server.listener` gives, or your own), before it accepts connections. It takes over
 * the server's reading of each socket (from node:http's C++ parser stream to `data` events), which
 * costs about 2 µs per request; answers, their order and every other behaviour stay as they were.
 * A socket it does not recognise (another server's kind, a future node:http) is left alone.
 */
export function serializePipelinedRequests(server: Server): void {
  server.on('connection', (socket: Socket) => oneAtATime(socket as ServedSocket));
}

function oneAtATime(socket: ServedSocket): void {
  const parser = socket.parser;
  const listeners = socket.listeners('data') as ((chunk: Buffer) => void)[];
  const first = listeners[0];
  // node:http feeds its parser from the one `data` listener it attached; anything else: not ours.
  if (parser == null || first === undefined || listeners.length !== 1) return;
  const feed: (chunk: Buffer) => void = first;
  socket.removeListener('data', feed);

  /** Bytes read and not yet given to the parser. */
  let pending: Buffer | undefined;
  /** The answer the next request waits for. */
  let waitingFor: ServerResponse | undefined;
  let scheduled = false;
  let pausedHere = false;
  /** Bytes of the request's Content-Length body the parser has not had yet. */
  let bodyLeft = 0;

  /** The answer being written to a request the parser has read whole: the next one waits. */
  const unanswered = (): ServerResponse | undefined => {
    const res = socket._httpMessage;
    return res?.req.complete ? res : undefined;
  };

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(pump);
  };

  const hold = (): void => {
    if (pausedHere) return;
    pausedHere = true;
    socket.pause();
  };

  const wait = (res: ServerResponse): void => {
    hold();
    if (waitingFor === res) return;
    waitingFor = res;
    const next = (): void => {
      if (waitingFor !== res) return;
      waitingFor = undefined;
      // A turn of the loop between two requests of one connection: everyone else's come first.
      schedule();
    };
    res.once('finish', next);
    res.once('close', next);
  };

  /** Upgraded or CONNECT: node:http let the socket go; the bytes after the head are the new owner's. */
  const handOver = (): void => {
    socket.removeListener('data', onData);
    socket.removeListener('drain', onDrain);
    const rest = pending;
    pending = undefined;
    if (rest !== undefined) socket.unshift(rest);
  };

  function pump(): void {
    scheduled = false;
    while (pending !== undefined) {
      if (socket.destroyed) {
        pending = undefined;
        return;
      }
      if (socket.parser !== parser) {
        handOver();
        return;
      }
      // node:http paused for unread answers: it resumes the socket on `drain`, and so do we.
      if (socket._paused === true) return;
      const res = unanswered();
      if (res !== undefined) {
        wait(res);
        return;
      }
      // A body of known length exactly (what follows it is the next request); else up to the end
      // of the next head, which also ends a chunked body: at most one request starts per feed.
      const headEnd = bodyLeft > 0 ? -1 : pending.indexOf(HEAD_END);
      const end = bodyLeft > 0 ? bodyLeft : headEnd === -1 ? pending.length : headEnd + 4;
      const slice = end < pending.length ? pending.subarray(0, end) : pending;
      pending = slice === pending ? undefined : pending.subarray(end);
      const startsHead = bodyLeft === 0;
      bodyLeft = Math.max(0, bodyLeft - slice.length);
      feed(slice);
      if (startsHead) bodyLeft = contentLength(socket._httpMessage?.req);
    }
    if (pausedHere && socket._paused !== true) {
      pausedHere = false;
      socket.resume();
    }
  }

  function onData(chunk: Buffer): void {
    pending = pending === undefined ? chunk : Buffer.concat([pending, chunk]);
    // While a request waits its turn, more bytes stay in the kernel: the client is slowed, not us.
    if (waitingFor !== undefined) hold();
    else if (!scheduled) pump();
  }

  function onDrain(): void {
    if (pending !== undefined && waitingFor === undefined) schedule();
  }

  // node:http's `on` for `data` stops its parser reading the socket by itself.
  socket.on('data', onData);
  socket.on('drain', onDrain);
}
