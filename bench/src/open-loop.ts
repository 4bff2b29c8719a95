/**
 * Open-loop load: requests arrive at a fixed rate whatever the server does, as
 * users' requests do, instead of autocannon's fixed number of connections that
 * each wait for an answer before asking again (closed loop: a slow server is
 * asked less, so it never sees more than it can take).
 *
 * Arrival `i` is due at `start + i / rate`. On every tick (about 1 ms) the
 * generator sends every arrival that is due, each on an idle keep-alive
 * connection or on a new one, up to `maxConnections` open; an arrival that finds
 * them all busy is `dropped` (counted here, never queued). Latency runs from the
 * arrival's scheduled time, not from when it was written, so a stalled server
 * (or a late generator) shows in it: no coordinated omission. A request not
 * answered within `deadlineMs` of its scheduled time is `timedOut` and its
 * connection destroyed.
 *
 * Raw `node:net` sockets, one pre-built request and a minimal HTTP/1.1
 * response parser (status line, Content-Length or chunked framing, header end),
 * so that one process on one core can offer several times what one server core
 * answers; node:http's client cannot. The rate the generator actually managed
 * is reported beside the scheduled one.
 */
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { assertLoopback } from './load.js';
import { percentileSorted } from './stats.js';

export interface OpenLoopSpec {
  /** http://127.0.0.1:<port>/...: anything but loopback is refused. */
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Arrivals per second (scheduled, whatever the answers). */
  readonly rate: number;
  /** How long arrivals are scheduled for. */
  readonly seconds: number;
  /** Most connections open at once; an arrival finding them all busy is dropped. Default 1,024. */
  readonly maxConnections?: number;
  /** From the scheduled time; a request not answered by then is timed out. Default 2,000. */
  readonly deadlineMs?: number;
  /** A fresh `Idempotency-Key` on every request. */
  readonly idempotencyKeys?: boolean;
  /**
   * An arrival the generator reaches later than this after its scheduled time is not sent
   * (`unsent`: the generator fell behind, not the server). Default 1,000.
   */
  readonly maxSendLagMs?: number;
  /**
   * Connections opened (and connected) before the clock starts, idle for the first arrivals,
   * so a run does not begin with a burst of connects (a burst past the server's listen backlog
   * stalls a second: the kernel drops the connects and the client retries). Default 0; at most
   * `maxConnections`.
   */
  readonly preconnect?: number;
  /**
   * First, on the same connections: arrivals at `rate` for `seconds`, answered and forgotten;
   * the measured schedule starts once they are all answered (or timed out).
   */
  readonly warmup?: { readonly rate: number; readonly seconds: number };
  /** Called between the warm-up and the measured schedule (read a probe, say). */
  readonly beforeMeasure?: () => Promise<void> | void;
  /**
   * Loopback addresses the connections come from, in turn (`127.0.1.1`, ...): many clients, as
   * a server or balancer that caps connections per address sees them. Default: the system's.
   */
  readonly localAddresses?: readonly string[];
}

export interface LatencySummary {
  readonly count: number;
  /** Exact, nearest rank over every sample; NaN with none. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface OpenLoopResult {
  /** Arrivals scheduled per second: `rate`. */
  readonly offeredRps: number;
  /** Requests written per second over the window they were written in (below offered when the generator fell behind or arrivals were dropped). */
  readonly sentRps: number;
  /** 2xx answers per second of the schedule. */
  readonly goodputRps: number;
  readonly seconds: number;
  /** From the start to the last write: the schedule's length, or more when the generator ran late. */
  readonly sendWindowSeconds: number;
  /** From the start until the last answer or timeout. */
  readonly elapsedSeconds: number;
  readonly scheduled: number;
  readonly sent: number;
  /** Arrivals that found `maxConnections` busy (client side; never queued). */
  readonly dropped: number;
  /** Arrivals the generator reached more than `maxSendLagMs` late: its own shortfall. */
  readonly unsent: number;
  /** No answer within the deadline; the connection was destroyed. */
  readonly timedOut: number;
  /** Connection refused or reset, or an answer this parser does not take. */
  readonly errors: number;
  readonly status: { readonly '2xx': number; readonly '503': number; readonly other: number };
  /** From scheduled time to the answer's last byte. */
  readonly latency2xx: LatencySummary;
  readonly latency503: LatencySummary;
  /** 2xx and 503 answers together. */
  readonly latencyAnswered: LatencySummary;
  /** From scheduled time to the write: the generator's own lateness. */
  readonly sendLag: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number };
  readonly maxOpenConnections: number;
  /** Opened by this run, not counting those taken over from the warm-up. */
  readonly connectionsOpened: number;
  /** More answers than the sample buffers hold: the percentiles cover the first ones only. */
  readonly samplesTruncated: boolean;
  /**
   * 503 answers without the API's refusal: a JSON content type and a `Retry-After` (a balancer's
   * or a proxy's own page, say).
   */
  readonly badRefusals: number;
  /**
   * The generator's own event loop over the measured run (1 ms resolution): how late it ran its
   * timers, and so how late it could read an answer. Beside `sendLag`, the check that it kept up.
   */
  readonly generatorLoopDelay: { readonly p99Ms: number; readonly maxMs: number };
  /** The warm-up's arrivals and answers, when there was one. */
  readonly warmup?: {
    readonly scheduled: number;
    readonly '2xx': number;
    readonly '503': number;
    readonly unanswered: number;
  };
}

const DEFAULT_MAX_CONNECTIONS = 1024;
const MAX_CONNECTIONS_LIMIT = 8192;
const DEFAULT_DEADLINE_MS = 2000;
const MAX_RATE = 500_000;
const MAX_SECONDS = 600;
/** Latency samples kept per class (2xx, 503, send lag): 32 MB each at most. */
const MAX_SAMPLES = 4_000_000;
/** Connections opened at once before a run, and the pause after each batch (see Run.#preconnect). */
const PRECONNECT_BATCH = 64;
const PRECONNECT_PAUSE_MS = 10;
/** Connections idle longer are not reused: below the 5 s keep-alive of node:http and HAProxy. */
const MAX_IDLE_MS = 4_000;
/** A connection that never sent a byte: below the service's FIRST_BYTE_TIMEOUT_MS (2 s). */
const MAX_IDLE_UNUSED_MS = 1_500;
/** A response head longer than this is not one the bench's servers send. */
const MAX_HEAD_BYTES = 64 * 1024;

/** A growable Float64Array, bounded. */
class Samples {
  #values = new Float64Array(1 << 14);
  #count = 0;
  truncated = false;

  add(value: number): void {
    if (this.#count === this.#values.length) {
      if (this.#count >= MAX_SAMPLES) {
        this.truncated = true;
        return;
      }
      const grown = new Float64Array(Math.min(MAX_SAMPLES, this.#values.length * 2));
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#count++] = value;
  }

  get count(): number {
    return this.#count;
  }

  sorted(): Float64Array {
    return this.#values.slice(0, this.#count).sort();
  }
}

function summary(sorted: Float64Array): LatencySummary {
  return {
    count: sorted.length,
    p50Ms: percentileSorted(sorted, 50),
    p99Ms: percentileSorted(sorted, 99),
    maxMs: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] as number),
  };
}

function merged(a: Float64Array, b: Float64Array): Float64Array {
  const all = new Float64Array(a.length + b.length);
  all.set(a);
  all.set(b, a.length);
  return all.sort();
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/**
 * What goes on the wire: the whole request as one buffer, written in one call; with
 * Idempotency-Keys, the text before the key's line and after it (the head's end and the body),
 * joined with a fresh key per request.
 */
interface RequestBytes {
  readonly whole: Buffer;
  readonly head: string;
  readonly rest: string;
}

function requestBytes(spec: OpenLoopSpec, url: URL): RequestBytes {
  const body = spec.body ?? '';
  const lines = [`${spec.method} ${url.pathname}${url.search} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(spec.headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === 'content-length' || lower === 'connection') continue;
    if (/[\r\n]/.test(name + value)) throw new Error(`header ${name}: no line breaks`);
    lines.push(`${name}: ${value}`);
  }
  if (spec.body !== undefined || spec.method === 'POST') {
    lines.push(`content-length: ${Buffer.byteLength(body)}`);
  }
  const head = `${lines.join('\r\n')}\r\n`;
  const rest = `\r\n${body}`;
  return { whole: Buffer.from(head + rest), head, rest };
}

/** Where a chunked body is: a size line, chunk data, the CRLF after it, the trailers. */
const SIZE = 0;
const DATA = 1;
const DATA_END = 2;
const TRAILERS = 3;

/** `Connection.#remaining` for a body that ends when the server closes the connection. */
const UNTIL_CLOSE = -2;

/** What a connection is doing. */
const IDLE = 0;
const BUSY = 1;
const CLOSED = 2;

/** One keep-alive connection and the response it is reading. */
class Connection {
  readonly socket: Socket;
  /** The run it reports to: a warm-up hands its connections over to the measured run. */
  run: Run;
  state: typeof IDLE | typeof BUSY | typeof CLOSED = BUSY;
  scheduledAt = 0;
  /** When it last went idle: one idle too long may be closed by the server as it is reused. */
  idleSince = 0;
  /** How long it may stay idle and still be used: shorter until it has carried a request. */
  maxIdleMs = MAX_IDLE_UNUSED_MS;
  // Response parsing.
  #pending: Buffer | undefined;
  #headDone = false;
  #status = 0;
  /** Body bytes still to read (Content-Length framing), -1 for chunked, UNTIL_CLOSE. */
  #remaining = 0;
  #chunk: typeof SIZE | typeof DATA | typeof DATA_END | typeof TRAILERS = SIZE;
  #chunkLeft = 0;
  #close = false;
  /** A 503 with a JSON content type and `Retry-After`: the API's refusal. */
  #wellFormedRefusal = false;

  constructor(run: Run, port: number, host: string, localAddress: string | undefined) {
    this.run = run;
    this.socket = connect({
      port,
      host,
      noDelay: true,
      ...(localAddress === undefined ? {} : { localAddress }),
    });
    this.socket.on('data', (data: Buffer) => this.#onData(data));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      // A body that ends with the connection (a balancer's error page, say) ends here.
      if (this.state === BUSY && this.#headDone && this.#remaining === UNTIL_CLOSE) {
        this.run.answered(this, this.#status, true, this.#wellFormedRefusal);
      } else this.run.closed(this);
    });
  }

  send(scheduledAt: number, bytes: RequestBytes, key: string | undefined): void {
    this.state = BUSY;
    this.scheduledAt = scheduledAt;
    this.#pending = undefined;
    this.#headDone = false;
    this.#status = 0;
    this.#remaining = 0;
    this.#chunk = SIZE;
    this.#chunkLeft = 0;
    this.#close = false;
    this.#wellFormedRefusal = false;
    if (key === undefined) this.socket.write(bytes.whole);
    else this.socket.write(`${bytes.head}idempotency-key: ${key}\r\n${bytes.rest}`);
  }

  #onData(data: Buffer): void {
    if (this.state !== BUSY) {
      // Bytes with no request out: nothing this client asked for.
      this.run.failed(this);
      return;
    }
    let buffer = this.#pending === undefined ? data : Buffer.concat([this.#pending, data]);
    this.#pending = undefined;
    if (!this.#headDone) {
      const end = buffer.indexOf(CRLFCRLF);
      if (end === -1) {
        if (buffer.length > MAX_HEAD_BYTES) this.run.failed(this);
        else this.#pending = buffer;
        return;
      }
      if (!this.#parseHead(buffer.toString('latin1', 0, end))) {
        this.run.failed(this);
        return;
      }
      this.#headDone = true;
      buffer = buffer.subarray(end + 4);
    }
    if (this.#remaining === UNTIL_CLOSE) return;
    const done = this.#remaining === -1 ? this.#readChunked(buffer) : this.#readLength(buffer);
    if (done === undefined) return;
    if (done === false) {
      this.run.failed(this);
      return;
    }
    this.run.answered(this, this.#status, this.#close, this.#wellFormedRefusal);
  }

  /** Status line and the three headers that matter; false for what this parser does not take. */
  #parseHead(head: string): boolean {
    if (!head.startsWith('HTTP/1.')) return false;
    const status = Number(head.slice(9, 12));
    if (!Number.isInteger(status) || status < 200) return false;
    this.#status = status;
    const lower = head.toLowerCase();
    this.#close = /\r\nconnection:[ \t]*close/.test(lower) || head.startsWith('HTTP/1.0');
    this.#wellFormedRefusal =
      status === 503 &&
      /\r\ncontent-type:[ \t]*application\/json/.test(lower) &&
      /\r\nretry-after:[ \t]*\d+/.test(lower);
    if (/\r\ntransfer-encoding:[ \t]*chunked/.test(lower)) {
      this.#remaining = -1;
      return true;
    }
    const length = /\r\ncontent-length:[ \t]*(\d+)/.exec(lower);
    if (length !== null) {
      this.#remaining = Number(length[1]);
      return true;
    }
    // No framing: no body, or one that ends with the connection (HTTP/1.1 allows it on close).
    this.#remaining = status === 204 || status === 304 ? 0 : UNTIL_CLOSE;
    return this.#remaining === 0 || this.#close;
  }

  /** true when the body is complete, undefined when more is to come, false on extra bytes. */
  #readLength(buffer: Buffer): boolean | undefined {
    if (buffer.length < this.#remaining) {
      this.#remaining -= buffer.length;
      return undefined;
    }
    // Bytes past the body: no pipelining here, so the server sent something unasked.
    return buffer.length === this.#remaining;
  }

  #readChunked(buffer: Buffer): boolean | undefined {
    let at = 0;
    while (at < buffer.length) {
      switch (this.#chunk) {
        case SIZE:
        case TRAILERS: {
          const eol = buffer.indexOf('\r\n', at, 'latin1');
          if (eol === -1) {
            if (buffer.length - at > MAX_HEAD_BYTES) return false;
            this.#pending = buffer.subarray(at);
            return undefined;
          }
          const line = buffer.toString('latin1', at, eol);
          at = eol + 2;
          if (this.#chunk === TRAILERS) {
            if (line === '') return at === buffer.length;
            continue;
          }
          const size = Number.parseInt(line.split(';', 1)[0] ?? '', 16);
          if (!Number.isFinite(size) || size < 0) return false;
          if (size === 0) this.#chunk = TRAILERS;
          else {
            this.#chunk = DATA;
            this.#chunkLeft = size;
          }
          break;
        }
        case DATA: {
          const take = Math.min(this.#chunkLeft, buffer.length - at);
          this.#chunkLeft -= take;
          at += take;
          if (this.#chunkLeft === 0) this.#chunk = DATA_END;
          break;
        }
        case DATA_END: {
          if (buffer.length - at < 2) {
            this.#pending = buffer.subarray(at);
            return undefined;
          }
          if (buffer[at] !== 13 || buffer[at + 1] !== 10) return false;
          at += 2;
          this.#chunk = SIZE;
          break;
        }
      }
    }
    return undefined;
  }
}

/** One open-loop run: the schedule, the connections and the counts. */
class Run {
  readonly #spec: OpenLoopSpec;
  readonly #port: number;
  readonly #host: string;
  readonly #bytes: RequestBytes;
  readonly #maxConnections: number;
  readonly #deadlineMs: number;
  readonly #maxSendLagMs: number;
  readonly #intervalMs: number;
  readonly #total: number;

  readonly #localAddresses: readonly string[];
  #nextAddress = 0;
  #badRefusals = 0;
  readonly #loopDelay = monitorEventLoopDelay({ resolution: 1 });

  readonly #idle: Connection[] = [];
  readonly #busy = new Set<Connection>();
  #open = 0;
  #maxOpen = 0;
  #opened = 0;

  #next = 0;
  #start = 0;
  #firstSend = Number.NaN;
  #lastSend = Number.NaN;
  #sent = 0;
  #dropped = 0;
  #unsent = 0;
  #timedOut = 0;
  #errors = 0;
  #ok = 0;
  #unavailable = 0;
  #other = 0;
  readonly #ok2xx = new Samples();
  readonly #lat503 = new Samples();
  readonly #lag = new Samples();

  #tick: NodeJS.Timeout | undefined;
  #sweep: NodeJS.Timeout | undefined;
  #finish: (() => void) | undefined;
  /** A warm-up keeps its idle connections for the run after it. */
  readonly #keepIdle: boolean;

  constructor(spec: OpenLoopSpec, url: URL, keepIdle = false) {
    this.#keepIdle = keepIdle;
    this.#spec = spec;
    this.#port = Number(url.port || 80);
    this.#host = url.hostname.replace(/^\[|\]$/g, '');
    this.#bytes = requestBytes(spec, url);
    this.#maxConnections = spec.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    this.#deadlineMs = spec.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.#maxSendLagMs = spec.maxSendLagMs ?? 1000;
    this.#intervalMs = 1000 / spec.rate;
    this.#localAddresses = spec.localAddresses ?? [];
    this.#total = Math.ceil(spec.rate * spec.seconds - 1e-9);
  }

  /** Takes over a warm-up's idle connections. */
  adopt(connections: readonly Connection[]): void {
    for (const connection of connections) {
      connection.run = this;
      this.#idle.push(connection);
      this.#open++;
    }
    this.#maxOpen = Math.max(this.#maxOpen, this.#open);
  }

  /** The idle connections, handed to the next run (a warm-up's). */
  release(): Connection[] {
    this.#open -= this.#idle.length;
    return this.#idle.splice(0);
  }

  async run(): Promise<OpenLoopResult> {
    const wanted = Math.min(this.#spec.preconnect ?? 0, this.#maxConnections);
    await this.#preconnect(Math.max(0, wanted - this.#open));
    return new Promise((resolve) => {
      this.#finish = () => resolve(this.#result());
      this.#start = performance.now();
      this.#loopDelay.reset();
      this.#loopDelay.enable();
      const sweepEvery = Math.max(5, Math.min(25, this.#deadlineMs / 8));
      this.#sweep = setInterval(() => this.#expire(performance.now()), sweepEvery);
      this.#schedule();
    });
  }

  /**
   * Opens `count` connections in batches of 64, each connected (or gone) and given 10 ms for the
   * server to accept it before the next: a connection counts as connected on this side as soon
   * as it waits in the server's accept queue, and past node:http's listen backlog (511) the
   * kernel drops the handshake's last packet, leaving a connection that stalls a second on its
   * first request. 10 s at most in all.
   */
  async #preconnect(count: number): Promise<void> {
    const until = performance.now() + 10_000;
    for (let opened = 0; opened < count && performance.now() < until; ) {
      const batch = Math.min(PRECONNECT_BATCH, count - opened);
      const connecting: Promise<unknown>[] = [];
      for (let index = 0; index < batch; index++) {
        const connection = this.#connect();
        this.#open++;
        this.#opened++;
        this.#maxOpen = Math.max(this.#maxOpen, this.#open);
        connection.state = IDLE;
        connection.idleSince = performance.now();
        this.#idle.push(connection);
        connecting.push(
          new Promise((resolve) => {
            connection.socket.once('connect', resolve);
            connection.socket.once('close', resolve);
          }),
        );
      }
      opened += batch;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(connecting),
        new Promise((resolve) => {
          timer = setTimeout(resolve, Math.max(0, until - performance.now()));
        }),
      ]);
      clearTimeout(timer);
      await new Promise((resolve) => setTimeout(resolve, PRECONNECT_PAUSE_MS));
    }
  }

  /** A new connection, from the next of `localAddresses` when there are some. */
  #connect(): Connection {
    const addresses = this.#localAddresses;
    const from =
      addresses.length === 0 ? undefined : addresses[this.#nextAddress++ % addresses.length];
    return new Connection(this, this.#port, this.#host, from);
  }

  /** Sends what is due, then sleeps until the next arrival (at least the timers' 1 ms). */
  #schedule = (): void => {
    const now = performance.now();
    while (this.#next < this.#total) {
      const due = this.#start + this.#next * this.#intervalMs;
      if (due > now) break;
      this.#next++;
      if (now - due > this.#maxSendLagMs) this.#unsent++;
      else this.#arrive(due, now);
    }
    if (this.#next < this.#total) {
      const wait = this.#start + this.#next * this.#intervalMs - performance.now();
      this.#tick = setTimeout(this.#schedule, Math.max(1, wait));
    } else {
      this.#tick = undefined;
      this.#maybeDone();
    }
  };

  #arrive(scheduledAt: number, now: number): void {
    let connection = this.#idle.pop();
    // Idle near the servers' timeouts (keep-alive 5 s; 2 s for a connection that never sent a
    // byte, the service's FIRST_BYTE_TIMEOUT_MS): they may close it as the request goes out.
    while (connection !== undefined && now - connection.idleSince > connection.maxIdleMs) {
      this.#discard(connection);
      connection = this.#idle.pop();
    }
    if (connection === undefined) {
      if (this.#open >= this.#maxConnections) {
        this.#dropped++;
        return;
      }
      connection = this.#connect();
      this.#open++;
      this.#opened++;
      if (this.#open > this.#maxOpen) this.#maxOpen = this.#open;
    }
    this.#busy.add(connection);
    connection.send(
      scheduledAt,
      this.#bytes,
      this.#spec.idempotencyKeys ? randomUUID() : undefined,
    );
    this.#sent++;
    if (Number.isNaN(this.#firstSend)) this.#firstSend = now;
    this.#lastSend = now;
    this.#lag.add(now - scheduledAt);
  }

  /** Called by a connection with a complete answer. */
  answered(connection: Connection, status: number, close: boolean, wellFormed: boolean): void {
    const latency = performance.now() - connection.scheduledAt;
    if (status >= 200 && status < 300) {
      this.#ok++;
      this.#ok2xx.add(latency);
    } else if (status === 503) {
      this.#unavailable++;
      this.#lat503.add(latency);
      if (!wellFormed) this.#badRefusals++;
    } else this.#other++;
    this.#busy.delete(connection);
    if (close) this.#discard(connection);
    else {
      connection.state = IDLE;
      connection.idleSince = performance.now();
      connection.maxIdleMs = MAX_IDLE_MS;
      this.#idle.push(connection);
    }
    this.#maybeDone();
  }

  /** A response this parser does not take, or bytes nobody asked for. */
  failed(connection: Connection): void {
    if (connection.state === BUSY) this.#errors++;
    this.#discard(connection);
    this.#maybeDone();
  }

  /** The socket closed: mid-request that is an error; idle, the server let it go. */
  closed(connection: Connection): void {
    if (connection.state === CLOSED) return;
    if (connection.state === BUSY) this.#errors++;
    this.#forget(connection);
    this.#maybeDone();
  }

  #discard(connection: Connection): void {
    if (connection.state === CLOSED) return;
    this.#forget(connection);
    connection.socket.destroy();
  }

  #forget(connection: Connection): void {
    if (connection.state === IDLE) {
      const at = this.#idle.indexOf(connection);
      if (at !== -1) this.#idle.splice(at, 1);
    }
    connection.state = CLOSED;
    this.#busy.delete(connection);
    this.#open--;
  }

  #expire(now: number): void {
    for (const connection of this.#busy) {
      if (now - connection.scheduledAt >= this.#deadlineMs) {
        this.#timedOut++;
        this.#discard(connection);
      }
    }
    this.#maybeDone();
  }

  #maybeDone(): void {
    if (this.#next < this.#total || this.#busy.size > 0 || this.#finish === undefined) return;
    clearTimeout(this.#tick);
    clearInterval(this.#sweep);
    this.#loopDelay.disable();
    if (!this.#keepIdle) for (const connection of [...this.#idle]) this.#discard(connection);
    const finish = this.#finish;
    this.#finish = undefined;
    finish();
  }

  #result(): OpenLoopResult {
    const seconds = this.#spec.seconds;
    const ok = this.#ok2xx.sorted();
    const unavailable = this.#lat503.sorted();
    const lag = this.#lag.sorted();
    // The window the requests were written in: the schedule, or longer when the generator ran late.
    const sendWindow = Math.max(
      seconds,
      Number.isNaN(this.#lastSend) ? 0 : (this.#lastSend - this.#start) / 1000,
    );
    return {
      offeredRps: this.#spec.rate,
      sentRps: this.#sent / sendWindow,
      goodputRps: this.#ok / seconds,
      seconds,
      sendWindowSeconds: sendWindow,
      elapsedSeconds: (performance.now() - this.#start) / 1000,
      scheduled: this.#total,
      sent: this.#sent,
      dropped: this.#dropped,
      unsent: this.#unsent,
      timedOut: this.#timedOut,
      errors: this.#errors,
      status: { '2xx': this.#ok, '503': this.#unavailable, other: this.#other },
      latency2xx: summary(ok),
      latency503: summary(unavailable),
      latencyAnswered: summary(merged(ok, unavailable)),
      sendLag: {
        p50Ms: percentileSorted(lag, 50),
        p99Ms: percentileSorted(lag, 99),
        maxMs: lag.length === 0 ? Number.NaN : (lag[lag.length - 1] as number),
      },
      maxOpenConnections: this.#maxOpen,
      connectionsOpened: this.#opened,
      samplesTruncated: this.#ok2xx.truncated || this.#lat503.truncated || this.#lag.truncated,
      badRefusals: this.#badRefusals,
      generatorLoopDelay: {
        p99Ms: this.#loopDelay.count === 0 ? 0 : this.#loopDelay.percentile(99) / 1e6,
        maxMs: this.#loopDelay.count === 0 ? 0 : this.#loopDelay.max / 1e6,
      },
    };
  }
}

/** One bounded open-loop run against 127.0.0.1. */
export async function openLoop(spec: OpenLoopSpec): Promise<OpenLoopResult> {
  assertLoopback(spec.url);
  const url = new URL(spec.url);
  if (url.protocol !== 'http:')
    throw new Error(`open-loop load speaks http only, not ${url.protocol}`);
  const check = (what: string, value: number, min: number, max: number) => {
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new Error(`open-loop ${what} must be within ${min}..${max}, got ${value}`);
    }
  };
  check('rate', spec.rate, 1e-3, MAX_RATE);
  check('seconds', spec.seconds, 1e-3, MAX_SECONDS);
  check('maxConnections', spec.maxConnections ?? DEFAULT_MAX_CONNECTIONS, 1, MAX_CONNECTIONS_LIMIT);
  check('deadlineMs', spec.deadlineMs ?? DEFAULT_DEADLINE_MS, 1, 60_000);
  check('maxSendLagMs', spec.maxSendLagMs ?? 1000, 0, 60_000);
  check('preconnect', spec.preconnect ?? 0, 0, MAX_CONNECTIONS_LIMIT);
  if (spec.warmup !== undefined) {
    check('warmup rate', spec.warmup.rate, 1e-3, MAX_RATE);
    check('warmup seconds', spec.warmup.seconds, 1e-3, MAX_SECONDS);
  }
  let warmup: OpenLoopResult['warmup'];
  let connections: Connection[] = [];
  if (spec.warmup !== undefined) {
    const run = new Run({ ...spec, ...spec.warmup }, url, true);
    const warm = await run.run();
    connections = run.release();
    warmup = {
      scheduled: warm.scheduled,
      '2xx': warm.status['2xx'],
      '503': warm.status['503'],
      unanswered: warm.scheduled - warm.status['2xx'] - warm.status['503'],
    };
  }
  const run = new Run(spec, url);
  run.adopt(connections);
  await spec.beforeMeasure?.();
  const result = await run.run();
  return warmup === undefined ? result : { ...result, warmup };
}
