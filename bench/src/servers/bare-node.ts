import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import * as v from 'valibot';
import {
  type BarePet,
  createBarePets,
  firstPage,
  INVALID_LIMIT,
  invalidBody,
  isAuthorized,
  NewPetSchema,
  parseLimit,
  UNAUTHORIZED,
} from './bare-shared.js';

const MAX_BODY_BYTES = 16 * 1024;

function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** The body as text, or undefined once it passes the limit (the connection then closes). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        resolve(undefined);
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
    req.on('error', reject);
  });
}

type NewBarePet = Omit<BarePet, 'id'>;
type Page = ReturnType<typeof firstPage>;

/** Where the bare routes keep pets: an array, or PostgreSQL (bare-postgres.ts). */
export interface BareStore {
  /** The first `limit` pets and the next link; a promise when the pets are in a database. */
  firstPage(limit: number): Page | Promise<Page>;
  create(pet: NewBarePet): BarePet | Promise<BarePet>;
  /**
   * The create under an `Idempotency-Key` (only SQLite has one, bare-sqlite.ts): the pet with
   * whether it is a replay, or `mismatch` when the key was used with another body.
   */
  createKeyed?(pet: NewBarePet, key: string, fingerprint: string): KeyedCreate;
}

export type KeyedCreate = { pet: BarePet; replayed: boolean } | 'mismatch';

/** As the core takes it: 1 to 255 visible ASCII characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The body's meaning, hashed as the core does, so a replay with reordered keys still matches. */
const fingerprintOf = (pet: { name: string; categoryId: number; status?: string | undefined }) =>
  createHash('sha256')
    .update(JSON.stringify([pet.name, pet.categoryId, pet.status ?? null]))
    .digest('base64url');

export function memoryBareStore(): BareStore {
  const pets = createBarePets();
  return {
    firstPage: (limit) => firstPage(pets, limit),
    create: (pet) => {
      const stored = { id: pets.length + 1, ...pet };
      pets.push(stored);
      return stored;
    },
  };
}

/** The baseline: the same two routes written directly on node:http, as a careful hand would. */
export function bareNodeServer(store: BareStore = memoryBareStore()): Server {
  const unauthorized = (res: ServerResponse) =>
    sendJson(res, 401, UNAUTHORIZED, { 'www-authenticate': 'Bearer realm="petstore"' });

  async function create(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!req.headers['content-type']?.startsWith('application/json')) {
      sendJson(res, 415, { code: 'unsupported_media_type', message: 'Send JSON.', status: 415 });
      return;
    }
    const text = await readBody(req);
    if (text === undefined) {
      sendJson(res, 413, { code: 'payload_too_large', message: 'Too large.', status: 413 });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      sendJson(res, 400, { code: 'malformed_json', message: 'Not JSON.', status: 400 });
      return;
    }
    const result = v.safeParse(NewPetSchema, body);
    if (!result.success) {
      sendJson(res, 400, invalidBody(result.issues));
      return;
    }
    const { name, categoryId, status = 'available' } = result.output;
    const key = req.headers['idempotency-key'];
    if (store.createKeyed !== undefined && key !== undefined) {
      if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
        sendJson(res, 400, { code: 'invalid_request', message: 'Bad key.', status: 400 });
        return;
      }
      const keyed = store.createKeyed(
        { name, categoryId, status },
        key,
        fingerprintOf(result.output),
      );
      if (keyed === 'mismatch') {
        sendJson(res, 422, { code: 'idempotency_key_reused', message: 'Reused.', status: 422 });
        return;
      }
      const location = `/v1/pets/${keyed.pet.id}`;
      sendJson(
        res,
        201,
        keyed.pet,
        keyed.replayed ? { location, 'idempotent-replayed': 'true' } : { location },
      );
      return;
    }
    const pet = await store.create({ name, categoryId, status });
    sendJson(res, 201, pet, { location: `/v1/pets/${pet.id}` });
  }

  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/v1/pets' || (req.method !== 'GET' && req.method !== 'POST')) {
      sendJson(res, 404, { code: 'not_found', message: 'No route.', status: 404 });
      return;
    }
    if (!isAuthorized(req.headers.authorization)) {
      unauthorized(res);
      return;
    }
    if (req.method === 'POST') {
      create(req, res).catch(() => res.destroy());
      return;
    }
    // A repeated `limit` is refused, as the contract says.
    const limits = url.searchParams.getAll('limit');
    const limit = limits.length > 1 ? undefined : parseLimit(limits[0]);
    if (limit === undefined) {
      sendJson(res, 400, INVALID_LIMIT);
      return;
    }
    const page = store.firstPage(limit);
    const send = ({ page: pets, link }: Page) =>
      sendJson(res, 200, pets, link === undefined ? {} : { link });
    // Kept synchronous for the array, as a hand-written in-memory route would be.
    if (page instanceof Promise) page.then(send, () => res.destroy());
    else send(page);
  });
}
