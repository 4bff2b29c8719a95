import { connect } from 'node:net';

/** One answer read off a raw socket. */
export interface RawAnswer {
  /** Undefined when the connection closed (or the wait ended) before a status line. */
  readonly status: number | undefined;
  /** Lower-cased names; the last value wins. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Everything the server sent, as latin1 text. */
  readonly raw: string;
  /** The server closed the connection before `waitMs` ran out. */
  readonly closed: boolean;
}

const HEAD_END = '\r\n\r\n';

/** The first final (non-1xx) response in `text`, once complete; undefined while not. */
function parseAnswer(
  text: string,
  noBody: boolean,
  closed: boolean,
): Omit<RawAnswer, 'raw' | 'closed'> | undefined {
  let rest = text;
  for (;;) {
    const end = rest.indexOf(HEAD_END);
    if (end === -1) return undefined;
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0)
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const after = rest.slice(end + HEAD_END.length);
    if (status >= 100 && status < 200) {
      rest = after;
      continue;
    }
    if (noBody || status === 204 || status === 304) return { status, headers, body: '' };
    if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      let body = '';
      let at = 0;
      for (;;) {
        const lineEnd = after.indexOf('\r\n', at);
        if (lineEnd === -1) return undefined;
        const size = Number.parseInt(after.slice(at, lineEnd), 16);
        if (size === 0) {
          if (!after.startsWith('\r\n', lineEnd + 2)) return undefined;
          return { status, headers, body: Buffer.from(body, 'latin1').toString('utf8') };
        }
        const start = lineEnd + 2;
        if (after.length < start + size + 2) return undefined;
        body += after.slice(start, start + size);
        at = start + size + 2;
      }
    }
    const length = headers['content-length'];
    if (length === undefined) {
      // Neither length nor chunks: the body runs to the close.
      return closed
        ? { status, headers, body: Buffer.from(after, 'latin1').toString('utf8') }
        : undefined;
    }
    if (after.length < Number(length)) return undefined;
    return {
      status,
      headers,
      body: Buffer.from(after.slice(0, Number(length)), 'latin1').toString('utf8'),
    };
  }
}

export interface RawRequestOptions {
  /** Longest wait for the answer. Default 5000. */
  readonly waitMs?: number;
  /** The request was HEAD: the answer has no body whatever its headers say. */
  readonly head?: boolean;
  /** Bytes to send after the first ones, with a pause before each (a slow client). */
  readonly dribble?: ReadonlyArray<{ readonly afterMs: number; readonly bytes: string | Buffer }>;
  /** Keep reading after the answer, until the server closes the connection or `waitMs` ends. */
  readonly untilClose?: boolean;
}

/**
 * Sends `bytes` on a new connection to 127.0.0.1:`port` exactly as given (nothing is fixed up,
 * so requests an HTTP client would refuse to send can be sent), and reads the first answer.
 */
export function rawRequest(
  port: number,
  bytes: string | Buffer,
  { waitMs = 5000, head = false, dribble = [], untilClose = false }: RawRequestOptions = {},
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      const parsed = parseAnswer(text, head, closed) ?? {
        status: undefined,
        headers: {},
        body: '',
      };
      resolve({ ...parsed, raw: text, closed });
      socket.destroy();
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (!untilClose && parseAnswer(text, head, false) !== undefined) finish(false);
    });
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.write(bytes);
    let delay = 0;
    for (const part of dribble) {
      delay += part.afterMs;
      timers.push(
        setTimeout(() => {
          if (!socket.destroyed) socket.write(part.bytes);
        }, delay),
      );
    }
    timers.push(setTimeout(() => finish(false), waitMs));
  });
}
