import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { keyChecker, type PeerApiKey, type Verdict } from './auth.js';
import { checkNewPet, fingerprintOf, MAX_DETAILS, parseBody } from './body.js';
import { type Detail, encodeCursor, type Page, parseId, RULES, readPage } from './input.js';
import {
  type KeyedOutcome,
  type Maybe,
  type NewPet,
  type Order,
  type PeerStore,
  type Pet,
  type PetStatus,
  StoreUnavailableError,
} from './store.js';

/**
 * The whole pet store contract written by hand on `node:http`, as a skilled engineer
 * would write it for speed: one listener, routes by string comparison, checks compiled once,
 * `writeHead` with a flat header list + `end`, `JSON.stringify`, and no closure per
 * request on the synchronous (memory) path. Mounted at `/v1`.
 */

export interface PeerOptions {
  readonly apiKeys: readonly PeerApiKey[];
  /** The static OpenAPI document, served without auth at `GET /v1/openapi.json`; none when undefined. */
  readonly openApiDocument?: string | Uint8Array | undefined;
  /** Largest request body. Default 16 KiB. */
  readonly maxBodyBytes?: number | undefined;
  /** Status of a pet created without one. Default `available`. */
  readonly defaultStatus?: PetStatus | undefined;
  /** When getPet was deprecated (`Deprecation`). Default 2026-11-22; the sunset is fixed. */
  readonly deprecatedAt?: Date | undefined;
}

const BASE = '/v1';
const JSON_TYPE = 'application/json; charset=utf-8';
const REALM = 'Bearer realm="petstore"';
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const KEY_TEXT = /^[\x21-\x7e]{1,255}$/;
const NONE: readonly string[] = [];
const EMPTY = Buffer.alloc(0);

/** Per-request state of a create kept on the request, so the body's listeners are shared. */
class PeerRequest extends IncomingMessage {
  /** Where the create's answer goes; undefined once answered (or never a create). */
  reply: ServerResponse | undefined = undefined;
  requestId = '';
  scope = '';
  idempotencyKey: string | undefined = undefined;
  chunks: Buffer[] | undefined = undefined;
  size = 0;
}

const requestIdOf = (sent: string | string[] | undefined): string =>
  typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();

/** `application/json`, with any parameters, case-insensitive. */
const isJson = (type: string | undefined): boolean =>
  type === 'application/json' ||
  type?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';

/** A body is on its way that nobody will read: the connection must end with the answer. */
const hasUnreadBody = (req: IncomingMessage): boolean =>
  !req.complete &&
  (req.headers['transfer-encoding'] !== undefined ||
    (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0'));

/** `writeHead`'s flat form: no header object built per answer. */
function write(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  requestId: string,
  extra: readonly string[],
  noStore: boolean,
): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  const head = ['content-type', JSON_TYPE, 'x-content-type-options', 'nosniff'];
  // A key's data is no cache's to keep; only the public document may be kept.
  if (noStore) head.push('cache-control', 'no-store');
  for (const value of extra) head.push(value);
  head.push('x-request-id', requestId, 'content-length', String(length));
  if (hasUnreadBody(req)) head.push('connection', 'close');
  res.writeHead(status, head);
  res.end(body);
}

class Peer {
  readonly #store: PeerStore;
  readonly #authenticate: (header: string | undefined) => Verdict;
  readonly #document: Buffer | undefined;
  readonly #maxBodyBytes: number;
  readonly #defaultStatus: PetStatus;
  /** Deprecation, Sunset and the successor Link: on every answer of getPet once authenticated. */
  readonly #deprecation: readonly string[];
  // Made once per server; each reads its request's state from `this` (the request).
  readonly #onData: (this: PeerRequest, chunk: Buffer) => void;
  readonly #onEnd: (this: PeerRequest) => void;
  readonly #onClose: (this: PeerRequest) => void;

  constructor(store: PeerStore, options: PeerOptions) {
    this.#store = store;
    this.#authenticate = keyChecker(options.apiKeys);
    const document = options.openApiDocument;
    this.#document = document === undefined ? undefined : Buffer.from(document);
    this.#maxBodyBytes = options.maxBodyBytes ?? 16 * 1024;
    this.#defaultStatus = options.defaultStatus ?? 'available';
    const deprecatedAt = options.deprecatedAt ?? new Date('2026-11-22T00:00:00Z');
    this.#deprecation = [
      'deprecation',
      `@${Math.floor(deprecatedAt.getTime() / 1000)}`,
      'sunset',
      'Thu, 05 Dec 2030 00:00:00 GMT',
      'link',
      `<${BASE}/pets>; rel="successor-version"`,
    ];
    const peer = this;
    this.#onData = function onData(chunk) {
      peer.#take(this, chunk);
    };
    this.#onEnd = function onEnd() {
      peer.#bodyEnded(this);
    };
    this.#onClose = function onClose() {
      // The client went away mid-body: nobody to answer, nothing stored.
      if (!this.complete) this.reply?.destroy();
      this.reply = undefined;
    };
  }

  readonly handle = (req: PeerRequest, res: ServerResponse): void => {
    const requestId = requestIdOf(req.headers['x-request-id']);
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const route =
      path === BASE ? '/' : path.startsWith(`${BASE}/`) ? path.slice(BASE.length) : undefined;
    if (route === undefined) {
      this.#error(req, res, requestId, 404, 'not_found', 'Nothing is served at this path.');
      return;
    }
    const method = req.method ?? 'GET';
    if (route === '/openapi.json' && method === 'GET' && this.#document !== undefined) {
      write(req, res, 200, this.#document, requestId, NONE, false);
      return;
    }
    // Before routing and input checks: an unauthenticated client learns nothing.
    const scope = this.#authenticate(req.headers.authorization);
    if (typeof scope !== 'string') {
      this.#unauthorized(req, res, requestId, scope === false);
      return;
    }
    const query = queryAt === -1 ? '' : url.slice(queryAt + 1);
    this.#route(req, res, requestId, method, route, query, scope);
  };

  #route(
    req: PeerRequest,
    res: ServerResponse,
    requestId: string,
    method: string,
    route: string,
    query: string,
    scope: string,
  ) {
    let allow: string | undefined;
    if (route === '/pets') {
      if (method === 'GET') return this.#listPets(req, res, requestId, query);
      if (method === 'POST') return this.#createPet(req, res, requestId, scope);
      allow = 'GET, POST';
    } else if (route === '/store/orders') {
      if (method === 'GET') return this.#listOrders(req, res, requestId, query);
      allow = 'GET';
    } else if (route === '/openapi.json' && this.#document !== undefined) {
      allow = 'GET';
    } else if (route.startsWith('/pets/') && route.length > 6 && route.indexOf('/', 6) === -1) {
      if (method === 'GET') return this.#getPet(req, res, requestId, route.slice(6));
      allow = 'GET';
    }
    if (allow === undefined) {
      this.#error(req, res, requestId, 404, 'not_found', `No route for ${BASE}${route}.`);
    } else {
      const message = `${method} is not allowed here; use ${allow}.`;
      this.#error(req, res, requestId, 405, 'method_not_allowed', message, ['allow', allow]);
    }
  }

  #listPets(req: PeerRequest, res: ServerResponse, requestId: string, query: string) {
    const page = readPage(query, true);
    if (Array.isArray(page)) return this.#invalid(req, res, requestId, 'query', page, NONE);
    let rows: Maybe<readonly Pet[]>;
    try {
      rows = this.#store.listPets(page.afterId, page.limit + 1, page.status);
    } catch (error) {
      return this.#failed(req, res, requestId, error, NONE);
    }
    if (rows instanceof Promise) {
      rows.then(
        (found) => this.#page(req, res, requestId, page, found, '/pets'),
        (error: unknown) => this.#failed(req, res, requestId, error, NONE),
      );
    } else this.#page(req, res, requestId, page, rows, '/pets');
  }

  #listOrders(req: PeerRequest, res: ServerResponse, requestId: string, query: string) {
    const page = readPage(query, false);
    if (Array.isArray(page)) return this.#invalid(req, res, requestId, 'query', page, NONE);
    let rows: Maybe<readonly Order[]>;
    try {
      rows = this.#store.listOrders(page.afterId, page.limit + 1);
    } catch (error) {
      return this.#failed(req, res, requestId, error, NONE);
    }
    if (rows instanceof Promise) {
      rows.then(
        (found) => this.#page(req, res, requestId, page, found, '/store/orders'),
        (error: unknown) => this.#failed(req, res, requestId, error, NONE),
      );
    } else this.#page(req, res, requestId, page, rows, '/store/orders');
  }

  /** A page of `limit` rows (one more was read) and, when more follow, `Link: rel="next"`. */
  #page(
    req: PeerRequest,
    res: ServerResponse,
    requestId: string,
    page: Page,
    rows: readonly { readonly id: number }[],
    path: string,
  ) {
    if (rows.length <= page.limit) {
      write(req, res, 200, JSON.stringify(rows), requestId, NONE, true);
      return;
    }
    const items = rows.slice(0, page.limit);
    const last = items[items.length - 1]?.id ?? 0;
    const filter = page.status === undefined ? '' : `&status=${page.status}`;
    const link = `<${BASE}${path}?limit=${page.limit}${filter}&cursor=${encodeCursor(last)}>; rel="next"`;
    write(req, res, 200, JSON.stringify(items), requestId, ['link', link], true);
  }

  #getPet(req: PeerRequest, res: ServerResponse, requestId: string, text: string) {
    const id = parseId(text);
    const deprecation = this.#deprecation;
    if (id === undefined) {
      const details = [{ path: 'petId', message: `petId ${RULES.id}` }];
      return this.#invalid(req, res, requestId, 'path', details, deprecation);
    }
    let pet: Maybe<Pet | undefined>;
    try {
      pet = this.#store.getPet(id);
    } catch (error) {
      return this.#failed(req, res, requestId, error, deprecation);
    }
    if (pet instanceof Promise) {
      pet.then(
        (found) => this.#pet(req, res, requestId, id, found),
        (error: unknown) => this.#failed(req, res, requestId, error, deprecation),
      );
    } else this.#pet(req, res, requestId, id, pet);
  }

  #pet(req: PeerRequest, res: ServerResponse, requestId: string, id: number, pet?: Pet) {
    if (pet === undefined) {
      const message = `No pet with id ${id}.`;
      this.#error(req, res, requestId, 404, 'not_found', message, this.#deprecation);
    } else write(req, res, 200, JSON.stringify(pet), requestId, this.#deprecation, true);
  }

  /** Checks what can be checked before the body (key, media type, coding, length), then reads it. */
  #createPet(req: PeerRequest, res: ServerResponse, requestId: string, scope: string) {
    const sent = req.headers['idempotency-key'];
    const key = Array.isArray(sent) ? sent.join(', ') : sent;
    if (key !== undefined && !KEY_TEXT.test(key)) {
      const details = [
        { path: 'Idempotency-Key', message: `Idempotency-Key ${RULES.idempotencyKey}` },
      ];
      return this.#invalid(req, res, requestId, 'header', details, NONE);
    }
    if (this.#refuseBody(req, res, requestId)) return;
    req.reply = res;
    req.requestId = requestId;
    req.scope = scope;
    req.idempotencyKey = key;
    req.on('data', this.#onData);
    req.on('end', this.#onEnd);
    req.on('close', this.#onClose);
  }

  /** 415 for anything but uncompressed JSON, 413 for a declared length over the limit. */
  #refuseBody(req: PeerRequest, res: ServerResponse, requestId: string): boolean {
    const headers: IncomingHttpHeaders = req.headers;
    if (!isJson(headers['content-type'])) {
      const message = 'Send the body as application/json.';
      this.#error(req, res, requestId, 415, 'unsupported_media_type', message);
      return true;
    }
    const coding = headers['content-encoding']?.trim().toLowerCase();
    if (coding !== undefined && coding !== '' && coding !== 'identity') {
      const message = `Content-Encoding ${coding} is not supported; send the body uncompressed.`;
      this.#error(req, res, requestId, 415, 'unsupported_media_type', message);
      return true;
    }
    if (Number(headers['content-length']) > this.#maxBodyBytes) {
      this.#tooLarge(req, res, requestId);
      return true;
    }
    return false;
  }

  #take(req: PeerRequest, chunk: Buffer) {
    const res = req.reply;
    if (res === undefined) return;
    req.size += chunk.byteLength;
    if (req.size > this.#maxBodyBytes) {
      // Stop reading: the rest is never buffered, and the connection ends with the 413.
      req.pause();
      req.reply = undefined;
      req.chunks = undefined;
      this.#tooLarge(req, res, req.requestId);
      return;
    }
    if (req.chunks === undefined) req.chunks = [chunk];
    else req.chunks.push(chunk);
  }

  #bodyEnded(req: PeerRequest) {
    const res = req.reply;
    if (res === undefined) return;
    req.reply = undefined;
    const chunks = req.chunks;
    req.chunks = undefined;
    const bytes =
      chunks === undefined ? EMPTY : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    this.#create(req, res, req.requestId, bytes ?? EMPTY);
  }

  /** The body read: JSON, a valid NewPet, then the store (under the Idempotency-Key if sent). */
  #create(req: PeerRequest, res: ServerResponse, requestId: string, bytes: Buffer) {
    if (!isUtf8(bytes)) {
      const message = 'The request body is not valid UTF-8.';
      return this.#error(req, res, requestId, 400, 'malformed_json', message);
    }
    // A byte order mark is ignored, as a UTF-8 decoder does by default (RFC 8259 allows it).
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    const text = bytes.toString('utf8', bom ? 3 : 0);
    let value: unknown;
    try {
      value = parseBody(text);
    } catch (error) {
      const message =
        text.trim() === ''
          ? 'The request body is empty; send a JSON object.'
          : `The request body is not valid JSON: ${(error as Error).message}`;
      return this.#error(req, res, requestId, 400, 'malformed_json', message);
    }
    const sent = checkNewPet(value);
    if ('details' in sent) {
      return this.#invalid(req, res, requestId, 'pet', sent.details, NONE, sent.total);
    }
    const { name, categoryId } = sent;
    const pet: NewPet = { name, categoryId, status: sent.status ?? this.#defaultStatus };
    const key = req.idempotencyKey;
    if (key === undefined) return this.#createPlain(req, res, requestId, pet);
    const claim = { scope: req.scope, key, fingerprint: fingerprintOf(sent) };
    let outcome: Maybe<KeyedOutcome>;
    try {
      outcome = this.#store.createPetKeyed(pet, claim);
    } catch (error) {
      return this.#failed(req, res, requestId, error, NONE);
    }
    if (outcome instanceof Promise) {
      outcome.then(
        (settled) => this.#keyed(req, res, requestId, settled),
        (error: unknown) => this.#failed(req, res, requestId, error, NONE),
      );
    } else this.#keyed(req, res, requestId, outcome);
  }

  #createPlain(req: PeerRequest, res: ServerResponse, requestId: string, pet: NewPet) {
    let stored: Maybe<Pet>;
    try {
      stored = this.#store.createPet(pet);
    } catch (error) {
      return this.#failed(req, res, requestId, error, NONE);
    }
    if (stored instanceof Promise) {
      stored.then(
        (created) => this.#created(req, res, requestId, created, false),
        (error: unknown) => this.#failed(req, res, requestId, error, NONE),
      );
    } else this.#created(req, res, requestId, stored, false);
  }

  /** The pet created or replayed, or why none was under this key. */
  #keyed(req: PeerRequest, res: ServerResponse, requestId: string, outcome: KeyedOutcome) {
    if (outcome.kind === 'created' || outcome.kind === 'replayed') {
      this.#created(req, res, requestId, outcome.pet, outcome.kind === 'replayed');
    } else if (outcome.kind === 'mismatch') {
      const message =
        'This Idempotency-Key was already used with a different body; use a new key for a new pet.';
      this.#error(req, res, requestId, 422, 'idempotency_key_reused', message);
    } else {
      const message =
        'A request with this Idempotency-Key is still being processed; retry shortly.';
      this.#error(req, res, requestId, 409, 'idempotency_key_in_use', message, [
        'retry-after',
        '1',
      ]);
    }
  }

  #created(req: PeerRequest, res: ServerResponse, requestId: string, pet: Pet, replayed: boolean) {
    const location = `${BASE}/pets/${pet.id}`;
    const headers = replayed
      ? ['location', location, 'idempotent-replayed', 'true']
      : ['location', location];
    write(req, res, 201, JSON.stringify(pet), requestId, headers, true);
  }

  #tooLarge(req: PeerRequest, res: ServerResponse, requestId: string) {
    const message = `The request body is larger than ${this.#maxBodyBytes} bytes.`;
    this.#error(req, res, requestId, 413, 'payload_too_large', message);
  }

  #unauthorized(req: PeerRequest, res: ServerResponse, requestId: string, tokenSent: boolean) {
    const message = tokenSent
      ? 'The API key is not valid.'
      : 'Send your API key as "Authorization: Bearer <key>".';
    const challenge = tokenSent ? `${REALM}, error="invalid_token"` : REALM;
    this.#error(req, res, requestId, 401, 'unauthorized', message, ['www-authenticate', challenge]);
  }

  /** A store outage is a 503 with Retry-After; any other failure a 500 that tells nothing. */
  #failed(
    req: PeerRequest,
    res: ServerResponse,
    requestId: string,
    error: unknown,
    extra: readonly string[],
  ) {
    if (error instanceof StoreUnavailableError) {
      const seconds = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
      const message = 'The pet store is temporarily unavailable; retry later.';
      const headers = [...extra, 'retry-after', seconds];
      return this.#error(req, res, requestId, 503, 'service_unavailable', message, headers);
    }
    this.#error(
      req,
      res,
      requestId,
      500,
      'internal_error',
      'Something went wrong on our side.',
      extra,
    );
  }

  /** 400 naming the problems: `Invalid <where>: [<total> problems, the first 20: ]<detail>; ….` */
  #invalid(
    req: PeerRequest,
    res: ServerResponse,
    requestId: string,
    where: string,
    details: readonly Detail[],
    extra: readonly string[],
    total = details.length,
  ) {
    const named = details.slice(0, MAX_DETAILS);
    const count = total > named.length ? `${total} problems, the first ${named.length}: ` : '';
    const message = `Invalid ${where}: ${count}${named.map((detail) => detail.message).join('; ')}.`;
    this.#error(req, res, requestId, 400, 'invalid_request', message, extra, named);
  }

  #error(
    req: PeerRequest,
    res: ServerResponse,
    requestId: string,
    status: number,
    code: string,
    message: string,
    extra: readonly string[] = NONE,
    details?: readonly Detail[],
  ) {
    const body =
      details === undefined ? { code, message, status } : { code, message, status, details };
    write(req, res, status, JSON.stringify(body), requestId, extra, true);
  }
}

/** The peer as a `node:http` server, not listening yet (listen on 127.0.0.1 yourself). */
export function nodePeerServer(store: PeerStore, options: PeerOptions): Server {
  const peer = new Peer(store, options);
  return createServer({ IncomingMessage: PeerRequest }, peer.handle);
}
