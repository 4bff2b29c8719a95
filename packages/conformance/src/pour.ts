import { request as httpRequest } from 'node:http';

const MIB = 1024 * 1024;
/** How much `pour` offers at most: far past any sane body limit. */
export const POUR_TOTAL = 10 * MIB;

export interface PourOutcome {
  readonly status: number | undefined;
  readonly connection: string | undefined;
  readonly body: string;
  /** Bytes the client had handed to the socket when the response arrived. */
  readonly sentBeforeResponse: number;
  readonly elapsedMs: number;
}

/**
 * For adapter tests: POSTs up to 10 MiB of body in 64 KiB chunks and stops as
 * soon as a response arrives, to show a 413 comes before the body ends.
 * Streams of body in 64 KiB chunks, stopping as soon as a response arrives (10 s at most). */
export function pour(
  origin: string,
  headers: Record<string, string>,
  path = '/v1/pets',
): Promise<PourOutcome> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const started = Date.now();
    let sent = 0;
    let outcome: Omit<PourOutcome, 'body'> | undefined;
    let body = '';
    // The client asks to keep the connection: only the server can decide to end it.
    const req = httpRequest(`${origin}${path}`, {
      method: 'POST',
      headers: { ...headers, connection: 'keep-alive' },
      agent: false,
    });
    req.on('response', (res) => {
      outcome = {
        status: res.statusCode,
        connection: res.headers.connection,
        sentBeforeResponse: sent,
        elapsedMs: Date.now() - started,
      };
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        body += text;
      });
      res.on('end', () => req.destroy());
    });
    // The server closes while we still write: EPIPE or ECONNRESET here is the point.
    req.on('error', () => {});
    req.on('close', () =>
      resolve({
        status: undefined,
        connection: undefined,
        sentBeforeResponse: sent,
        elapsedMs: Date.now() - started,
        ...outcome,
        body,
      }),
    );
    void (async () => {
      while (
        sent < POUR_TOTAL &&
        outcome === undefined &&
        !req.destroyed &&
        Date.now() - started < 10_000
      ) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          await new Promise<void>((next) => {
            const done = () => {
              for (const event of ['drain', 'close', 'response']) req.off(event, done);
              next();
            };
            for (const event of ['drain', 'close', 'response']) req.once(event, done);
          });
        }
      }
      if (!req.destroyed && outcome === undefined) req.end();
    })();
  });
}
