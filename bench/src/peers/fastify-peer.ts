import { hash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginCallback,
  type FastifyReply,
  type FastifyRequest,
  type onRequestHookHandler,
  type preParsingHookHandler,
} from 'fastify';
import {
  apiError,
  type ErrorAnswer,
  invalidInput,
  MAX_ID,
  notFound,
  PeerError,
  problem,
  RULES,
  sendError,
  unsupportedMedia,
} from './fastify-errors.js';
import {
  answerFor,
  decodeCursor,
  encodeCursor,
  parseJsonBody,
  parseRawQuery,
  type RawQuery,
} from './fastify-input.js';
import {
  CREATE_HEADERS,
  NEW_PET,
  ORDERS_QUERY,
  ORDERS_RESPONSES,
  PET_PARAMS,
  PET_RESPONSES,
  PETS_QUERY,
  PETS_RESPONSES,
} from './fastify-schemas.js';
import {
  type KeyedCreate,
  type NewOrder,
  type NewPet,
  PeerState,
  type Pet,
  type PetStatus,
} from './fastify-state.js';

/**
 * The whole pet store contract written by hand on Fastify 5, over memory, as
 * a Fastify expert would for speed: ajv-compiled request schemas,
 * fast-json-stringify responses, Fastify's own body reader and `bodyLimit`,
 * one error handler and one not-found handler in the contract's Error body.
 * No project package: this is what our library is measured against.
 */

export interface FastifyPeerOptions {
  /** Accepted API keys, each its own Idempotency-Key scope. */
  readonly apiKeys: readonly string[];
  /** The OpenAPI document, served as these bytes at `GET /v1/openapi.json`. */
  readonly openApiDocument: string;
  /** Pets and orders to start with: ids 1, 2, ... in this order. */
  readonly seed?: { readonly pets?: readonly NewPet[]; readonly orders?: readonly NewOrder[] };
}

export interface FastifyPeer {
  /** Listening on 127.0.0.1 at this port, the API under `/v1`. */
  readonly port: number;
  /** The peer's own state, read and written without HTTP (seeding, checks). */
  readonly state: PeerState;
  /** Adds pets, then orders, ids following on: a seed without HTTP. */
  seed(pets: readonly NewPet[], orders?: readonly NewOrder[]): void;
  close(): Promise<void>;
}

const BASE = '/v1';
const MAX_BODY_BYTES = 16 * 1024;
const DEFAULT_LIMIT = 20;
const JSON_TYPE = 'application/json; charset=utf-8';
const REALM = 'Bearer realm="petstore"';
/** Deprecated 2026-11-22 (RFC 9745), removed 2030-12-05 (RFC 8594), and what replaces it. */
const DEPRECATION = {
  deprecation: `@${Date.UTC(2026, 10, 22) / 1000}`,
  sunset: new Date(Date.UTC(2030, 11, 5)).toUTCString(),
  link: `<${BASE}/pets>; rel="successor-version"`,
};
/** The request decorator holding the Idempotency-Key scope of the key that authenticated. */
const SCOPE = 'apiKeyScope';

/** Paths the API serves and their methods: what a 405's `Allow` says. */
const ROUTES: readonly { readonly path: RegExp; readonly allow: string }[] = [
  { path: /^\/v1\/pets$/, allow: 'GET, POST' },
  { path: /^\/v1\/pets\/[^/]+$/, allow: 'GET' },
  { path: /^\/v1\/store\/orders$/, allow: 'GET' },
  { path: /^\/v1\/openapi\.json$/, allow: 'GET' },
];

const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The client's X-Request-Id when sane (1 to 128 visible ASCII characters), else a fresh UUID. */
function requestId(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

const unauthorized = (tokenSent: boolean): ErrorAnswer =>
  tokenSent
    ? apiError(401, 'unauthorized', 'The API key is not valid.', {
        'www-authenticate': `${REALM}, error="invalid_token"`,
      })
    : apiError(401, 'unauthorized', 'Send your API key as "Authorization: Bearer <key>".', {
        'www-authenticate': REALM,
      });

const AUTHORIZATION = /^\s*(\S+)(?:\s+(.*))?$/;

/** The Bearer token (the scheme name in any case), or undefined when none was sent. */
function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : AUTHORIZATION.exec(header);
  if (match?.[1]?.toLowerCase() !== 'bearer') return undefined;
  const token = match[2]?.trim();
  return token === '' ? undefined : token;
}

type KeyCheck = (header: string | undefined) => string | ErrorAnswer;

/** The key check: SHA-256 digests compared with `timingSafeEqual`, against every key. */
function keyCheck(apiKeys: readonly string[]): KeyCheck {
  if (apiKeys.length === 0) throw new TypeError('startFastifyPeer needs at least one API key');
  const sha256 = (text: string) => hash('sha256', text, 'buffer');
  const keys = apiKeys.map((key, index) => ({ digest: sha256(key), scope: `key:${index}` }));
  return (header) => {
    const token = bearerToken(header);
    if (token === undefined) return unauthorized(false);
    const digest = sha256(token);
    let scope: string | undefined;
    // No early exit: the time taken tells neither a key nor its place in the list.
    for (const key of keys) if (timingSafeEqual(key.digest, digest)) scope ??= key.scope;
    return scope ?? unauthorized(true);
  };
}

/** No route for this method and path: 405 with `Allow` when the path is served, else 404. */
function routeMiss(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?', 1)[0] ?? '';
  const route = ROUTES.find((candidate) => candidate.path.test(path));
  if (route === undefined) {
    sendError(reply, notFound(`No route for ${path}.`));
    return;
  }
  const message = `${request.method} is not allowed here; use ${route.allow}.`;
  sendError(reply, apiError(405, 'method_not_allowed', message, { allow: route.allow }));
}

/** Every answer names its request and is never sniffed as anything but what it says. */
const identify: onRequestHookHandler = (request, reply, done) => {
  reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
  done();
};

/** Authentication comes first: an unauthenticated client learns nothing of routes or input. */
function authenticate(check: KeyCheck): onRequestHookHandler {
  return (request, reply, done) => {
    // A key's data is no cache's to keep, and neither is an error.
    reply.header('cache-control', 'no-store');
    const scope = check(request.headers.authorization);
    if (typeof scope !== 'string') {
      sendError(reply, scope);
      return;
    }
    request.setDecorator(SCOPE, scope);
    // Answered here, before Fastify reads a body that no route wants.
    if (request.is404) routeMiss(request, reply);
    else done();
  };
}

/** Every answer of the deprecated getPet says so, once authenticated. */
const announceDeprecation: onRequestHookHandler = (_request, reply, done) => {
  reply.headers(DEPRECATION);
  done();
};

/** What Fastify's parsers let through: no Content-Type and no body, or a content coding (RFC 7694). */
const checkMedia: preParsingHookHandler = (request, _reply, payload, done) => {
  const { headers } = request;
  const coding = headers['content-encoding']?.trim().toLowerCase();
  if (headers['content-type'] === undefined) done(new PeerError(unsupportedMedia()), payload);
  else if (coding === undefined || coding === '' || coding === 'identity') done(null, payload);
  else {
    const message = `Content-Encoding ${coding} is not supported; send the body uncompressed.`;
    done(new PeerError(unsupportedMedia(message)), payload);
  }
};

/** RFC 8288 link to the next page, with the same `limit` and filter. */
function nextLink(path: string, limit: number, lastId: number, status?: PetStatus): string {
  const filter = status === undefined ? '' : `&status=${status}`;
  return `<${BASE}${path}?limit=${limit}${filter}&cursor=${encodeCursor(lastId)}>; rel="next"`;
}

const badCursor = invalidInput('query', [problem('cursor', RULES.cursor)]);

interface PageQuery {
  readonly limit?: string;
  readonly status?: PetStatus;
  readonly cursor?: string;
}

/** A keyset page (`limit` checked by the schema, a cursor we issued), with `Link` when more follow. */
function sendPage(
  reply: FastifyReply,
  query: PageQuery,
  path: string,
  read: (afterId: number | undefined, limit: number) => { readonly id: number }[],
): void {
  const afterId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (query.cursor !== undefined && afterId === undefined) {
    sendError(reply, badCursor);
    return;
  }
  const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
  // One row more than asked tells whether a next page exists.
  const rows = read(afterId, limit + 1);
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const last = rows.at(-1);
  if (more && last !== undefined)
    reply.header('link', nextLink(path, limit, last.id, query.status));
  void reply.send(rows);
}

function sendCreated(reply: FastifyReply, pet: Pet, replayed: boolean): void {
  reply.code(201).header('location', `${BASE}/pets/${pet.id}`);
  if (replayed) reply.header('idempotent-replayed', 'true');
  void reply.send(pet);
}

interface NewPetBody {
  readonly name: string;
  readonly categoryId: number;
  readonly status?: PetStatus;
}
interface CreateRoute {
  readonly Body: NewPetBody;
  readonly Headers: { readonly 'idempotency-key'?: string };
}
interface GetRoute {
  readonly Params: { readonly petId: string };
}

/** The answer to a create under an Idempotency-Key. */
function sendKeyed(reply: FastifyReply, outcome: KeyedCreate): void {
  switch (outcome.kind) {
    case 'created':
    case 'replayed':
      sendCreated(reply, outcome.pet, outcome.kind === 'replayed');
      return;
    case 'mismatch': {
      const message =
        'This Idempotency-Key was already used with a different body; use a new key for a new pet.';
      sendError(reply, apiError(422, 'idempotency_key_reused', message));
      return;
    }
    case 'full': {
      const message = 'The pet store is temporarily unavailable; retry later.';
      const headers = { 'retry-after': String(outcome.retryAfterSeconds) };
      sendError(reply, apiError(503, 'service_unavailable', message, headers));
    }
  }
}

/** POST /pets: the body checked by the schema; with an Idempotency-Key, at most one pet per key. */
function createPet(state: PeerState) {
  return (request: FastifyRequest<CreateRoute>, reply: FastifyReply<CreateRoute>): void => {
    const { name, categoryId, status } = request.body;
    const input: NewPet = { name, categoryId, status: status ?? 'available' };
    const key = request.headers['idempotency-key'];
    if (key === undefined) {
      sendCreated(reply, state.createPet(input), false);
      return;
    }
    // The body's meaning, not its bytes: key order and spacing make no other request.
    const meaning = JSON.stringify([name, categoryId, status ?? null]);
    const fingerprint = hash('sha256', meaning, 'base64url');
    const scope = request.getDecorator<string>(SCOPE);
    sendKeyed(reply, state.createPetOnce({ scope, key, fingerprint }, input));
  };
}

const badPetId = invalidInput('path', [problem('petId', RULES.id)]);

/** GET /pets/{petId} (deprecated): the id as sent, a decimal integer from 1 to 2^53 − 1. */
function getPet(state: PeerState) {
  return (request: FastifyRequest<GetRoute>, reply: FastifyReply<GetRoute>): void => {
    const { petId } = request.params;
    const id = Number(petId);
    // The router decodes `%31` to `1`; the contract takes the id as sent.
    const path = request.url.split('?', 1)[0] ?? '';
    if (id > MAX_ID || !path.endsWith(`/${petId}`)) {
      sendError(reply, badPetId);
      return;
    }
    const pet = state.getPet(id);
    if (pet === undefined) sendError(reply, notFound(`No pet with id ${id}.`));
    else void reply.send(pet);
  };
}

/** The operations, each with its schemas: Fastify validates and serialises by them. */
function routes(scope: FastifyInstance, state: PeerState): void {
  const petsSchema = { querystring: PETS_QUERY, response: PETS_RESPONSES };
  scope.get<{ Querystring: PageQuery }>('/pets', { schema: petsSchema }, (request, reply) => {
    const { status } = request.query;
    sendPage(reply, request.query, '/pets', (after, limit) => state.listPets(status, after, limit));
  });
  const createSchema = { body: NEW_PET, headers: CREATE_HEADERS, response: PET_RESPONSES };
  scope.post<CreateRoute>(
    '/pets',
    { schema: createSchema, preParsing: checkMedia },
    createPet(state),
  );
  // find-my-way lets `:petId` match an empty segment: `/pets/` is no pet's path.
  scope.get('/pets/', routeMiss);
  const getSchema = { params: PET_PARAMS, response: PET_RESPONSES };
  const getOptions = { schema: getSchema, onRequest: announceDeprecation };
  scope.get<GetRoute>('/pets/:petId', getOptions, getPet(state));
  const ordersSchema = { querystring: ORDERS_QUERY, response: ORDERS_RESPONSES };
  scope.get<{ Querystring: PageQuery }>(
    '/store/orders',
    { schema: ordersSchema },
    (request, reply) => {
      sendPage(reply, request.query, '/store/orders', (after, limit) =>
        state.listOrders(after, limit),
      );
    },
  );
}

/** Everything behind the key check: the operations, their errors and misses. */
function api(options: FastifyPeerOptions, state: PeerState): FastifyPluginCallback {
  return (scope, _options, done) => {
    scope.decorateRequest(SCOPE, '');
    // Only JSON: Fastify's text/plain parser would let a text body through to validation.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody);
    scope.addHook('onRequest', authenticate(keyCheck(options.apiKeys)));
    scope.setErrorHandler<FastifyError, { Querystring: RawQuery }>((error, request, reply) => {
      const sent = { body: request.body, query: request.query };
      sendError(reply, answerFor(error, sent, MAX_BODY_BYTES));
    });
    // Gives unknown paths under /v1 this scope's hooks; `authenticate` answers them first.
    scope.setNotFoundHandler(routeMiss);
    routes(scope, state);
    done();
  };
}

/** The peer's Fastify app, not listening yet. */
export function fastifyPeerApp(options: FastifyPeerOptions, state: PeerState): FastifyInstance {
  const app = Fastify({
    bodyLimit: MAX_BODY_BYTES,
    // HEAD is no operation of the API: 405 with `Allow`, as any other method.
    exposeHeadRoutes: false,
    genReqId: requestId,
    routerOptions: { querystringParser: parseRawQuery },
    // Every problem at once; no coercion (`"5"` is no categoryId); unknown properties refused, not dropped.
    ajv: {
      customOptions: {
        allErrors: true,
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
      },
    },
  });
  const document = Buffer.from(options.openApiDocument);
  const v1: FastifyPluginCallback = (scope, _options, done) => {
    scope.addHook('onRequest', identify);
    // The one public route: the document, as a hand-written app ships its static openapi.json.
    scope.get('/openapi.json', (_request, reply) => {
      void reply.type(JSON_TYPE).send(document);
    });
    scope.register(api(options, state));
    done();
  };
  void app.register(v1, { prefix: BASE });
  return app;
}

/** Starts the peer on 127.0.0.1 (a free port), the API under `/v1`. */
export async function startFastifyPeer(options: FastifyPeerOptions): Promise<FastifyPeer> {
  const state = new PeerState();
  const seed = (pets: readonly NewPet[], orders: readonly NewOrder[] = []): void => {
    for (const pet of pets) state.createPet(pet);
    for (const order of orders) state.createOrder(order);
  };
  seed(options.seed?.pets ?? [], options.seed?.orders);
  const app = fastifyPeerApp(options, state);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { port, state, seed, close: () => app.close() };
}
