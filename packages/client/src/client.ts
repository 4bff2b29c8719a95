import { errorFromAnswer, PetStoreError } from './errors.js';
import { cursorOf, nextLink } from './link.js';
import { backoffMs, type RetryEvent, type RetryReason, retryAfterMs, sleep } from './retry.js';
import type { ListOrdersQuery, ListPetsQuery, NewPet, Order, Page, Pet } from './types.js';

export interface PetStoreClientOptions {
  /** Where the API is mounted, with its base path: `https://pets.example.com/v1`. */
  readonly baseUrl: string | URL;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  /**
   * Retries after the first attempt, on a 503, a network error, and (creates only) a 409
   * `idempotency_key_in_use`. Default 3. Any other answer is final.
   */
  readonly retries?: number;
  /** A fetch to use instead of the global one (a proxy agent, a test double, a polyfill). */
  readonly fetch?: typeof globalThis.fetch;
  /** Called before each wait between attempts. */
  readonly onRetry?: (event: RetryEvent) => void;
}

export interface CreatePetOptions {
  /**
   * Sent as `Idempotency-Key` on every attempt. Default: a random UUID per call. Pass your own
   * to make a create safe across process restarts too (the service remembers it for 24 h).
   */
  readonly idempotencyKey?: string;
}

/** Filters for walking every page: `limit` is the page size, not a total. */
export type PetsQuery = Omit<ListPetsQuery, 'cursor'>;
export type OrdersQuery = Omit<ListOrdersQuery, 'cursor'>;

export interface PetStoreClient {
  /**
   * `POST /pets`. Always sends an `Idempotency-Key` (random unless given), so retrying after
   * a 503, a network error or a 409 `idempotency_key_in_use` never creates a second pet.
   */
  createPet(newPet: NewPet, options?: CreatePetOptions): Promise<Pet>;
  /** `GET /pets`: one page, ascending by id, and the cursor of the next. */
  listPets(query?: ListPetsQuery): Promise<Page<Pet>>;
  /** Every pet matching `query`, page after page, following `Link: rel="next"`. */
  pets(query?: PetsQuery): AsyncIterableIterator<Pet>;
  /**
   * `GET /pets/{petId}`.
   * @deprecated The service removes this operation on 5 December 2030 (its `Sunset` header).
   * Use `listPets` or `pets` with a `status` filter instead.
   */
  getPet(petId: number): Promise<Pet>;
  /** `GET /store/orders`: one page of orders and the cursor of the next. */
  listOrders(query?: ListOrdersQuery): Promise<Page<Order>>;
  /** Every order, page after page, following `Link: rel="next"`. */
  orders(query?: OrdersQuery): AsyncIterableIterator<Order>;
}

export const DEFAULT_RETRIES = 3;

interface Call {
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly body?: string;
  readonly idempotencyKey?: string;
}

interface Answer<T> {
  readonly value: T;
  readonly response: Response;
}

type Attempt<T> =
  | { readonly answer: Answer<T> }
  | {
      readonly failure: PetStoreError;
      readonly retryAs: RetryReason | undefined;
      readonly retryAfter: string | null;
    };

type QueryValue = string | number | undefined;

function withQuery(url: string, query: Readonly<Record<string, QueryValue>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? url : `${url}?${text}`;
}

/** A client for one service and one API key. Uses only `fetch`: Node 20+ and browsers alike. */
export function createPetStoreClient(options: PetStoreClientOptions): PetStoreClient {
  const base = String(options.baseUrl).replace(/\/+$/, '');
  const retries = options.retries ?? DEFAULT_RETRIES;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new TypeError(`retries must be a whole number of at least 0, got ${retries}`);
  }
  // The global is looked up per call and never detached: browsers reject a fetch called
  // with another `this`.
  const fetchOnce = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers = (call: Call): Record<string, string> => ({
    accept: 'application/json',
    authorization: `Bearer ${options.apiKey}`,
    ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(call.idempotencyKey === undefined ? {} : { 'idempotency-key': call.idempotencyKey }),
  });

  /** One attempt: the parsed 2xx body, or the failure and whether it may be retried. */
  const attempt = async <T>(call: Call): Promise<Attempt<T>> => {
    let response: Response;
    try {
      response = await fetchOnce(call.url, {
        method: call.method,
        headers: headers(call),
        ...(call.body === undefined ? {} : { body: call.body }),
      });
    } catch (error) {
      // No answer: refused, reset, DNS... The request may or may not have arrived, which is
      // safe to retry for reads and for creates carrying an Idempotency-Key.
      const reason = error instanceof Error ? error.message : String(error);
      const failure = new PetStoreError({
        status: 0,
        code: 'network_error',
        message: `No answer from ${call.method} ${call.url}: ${reason}`,
        cause: error,
      });
      return { failure, retryAs: 'network_error', retryAfter: null };
    }
    const text = await response.text();
    if (response.ok) return { answer: { value: JSON.parse(text) as T, response } };
    const failure = errorFromAnswer(response, text);
    const retryAfter = response.headers.get('retry-after');
    if (response.status === 503) return { failure, retryAs: 'service_unavailable', retryAfter };
    if (failure.code === 'idempotency_key_in_use' && call.idempotencyKey !== undefined) {
      return { failure, retryAs: 'idempotency_key_in_use', retryAfter };
    }
    // 422 `idempotency_key_reused` and every other answer are final: a retry cannot help.
    return { failure, retryAs: undefined, retryAfter };
  };

  /** One call with its retries: the parsed 2xx body, or a thrown PetStoreError. */
  const send = async <T>(call: Call): Promise<Answer<T>> => {
    for (let retry = 1; ; retry++) {
      const result = await attempt<T>(call);
      if ('answer' in result) return result.answer;
      const { failure, retryAs, retryAfter } = result;
      if (retryAs === undefined || retry > retries) throw failure;
      const fromHeader = retryAfterMs(retryAfter);
      const waitMs = fromHeader ?? backoffMs(retry);
      options.onRetry?.({
        operation: call.operation,
        retry,
        reason: retryAs,
        status: failure.status,
        waitMs,
        fromRetryAfter: fromHeader !== undefined,
        idempotencyKey: call.idempotencyKey,
        requestId: failure.requestId,
      });
      await sleep(waitMs);
    }
  };

  const page = async <T>(operation: string, url: string): Promise<Page<T> & { next?: string }> => {
    const { value, response } = await send<T[]>({ operation, method: 'GET', url });
    const next = nextLink(response.headers.get('link'));
    return {
      items: value,
      nextCursor: cursorOf(next, url),
      ...(next === undefined ? {} : { next: new URL(next, url).toString() }),
    };
  };

  async function* walk<T>(operation: string, first: string): AsyncIterableIterator<T> {
    let url: string | undefined = first;
    while (url !== undefined) {
      const current: Page<T> & { next?: string } = await page<T>(operation, url);
      yield* current.items;
      url = current.next;
    }
  }

  const petsUrl = (query: ListPetsQuery) =>
    withQuery(`${base}/pets`, { status: query.status, limit: query.limit, cursor: query.cursor });
  const ordersUrl = (query: ListOrdersQuery) =>
    withQuery(`${base}/store/orders`, { limit: query.limit, cursor: query.cursor });
  const strip = <T>({ items, nextCursor }: Page<T>): Page<T> => ({ items, nextCursor });

  return {
    async createPet(newPet, { idempotencyKey = globalThis.crypto.randomUUID() } = {}) {
      const { value } = await send<Pet>({
        operation: 'createPet',
        method: 'POST',
        url: `${base}/pets`,
        body: JSON.stringify(newPet),
        idempotencyKey,
      });
      return value;
    },
    listPets: async (query = {}) => strip(await page<Pet>('listPets', petsUrl(query))),
    pets: (query = {}) => walk<Pet>('listPets', petsUrl(query)),
    async getPet(petId) {
      const url = `${base}/pets/${encodeURIComponent(String(petId))}`;
      return (await send<Pet>({ operation: 'getPet', method: 'GET', url })).value;
    },
    listOrders: async (query = {}) => strip(await page<Order>('listOrders', ordersUrl(query))),
    orders: (query = {}) => walk<Order>('listOrders', ordersUrl(query)),
  };
}
