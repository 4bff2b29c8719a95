import { DEFAULT_MAX_RESPONSE_BYTES, readCapped } from './body.js';
import { startDeadline, untilAborted } from './deadline.js';
import {
  bodyOfSuccess,
  errorFromAnswer,
  isRedirect,
  PetStoreError,
  redirectRefused,
} from './errors.js';
import { nextPage, pagingGuard } from './link.js';
import { innermostMessage, outcomeOpen, outcomeUnknown } from './outcome.js';
import { backoffMs, type RetryEvent, type RetryReason, retryAfterMs, sleep } from './retry.js';
import { createRetryTokens, type RetryTokensOptions } from './retry-tokens.js';
import type { Operation } from './shapes.js';
import type { ListOrdersQuery, ListPetsQuery, NewPet, Order, Page, Pet } from './types.js';

export interface PetStoreClientOptions {
  /**
   * Where the API is mounted, with its base path: `https://pets.example.com/v1`. An absolute
   * http(s) URL without query, fragment or credentials (else a `TypeError`).
   */
  readonly baseUrl: string | URL;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  /**
   * Milliseconds from a call's start within which it retries, on a 503, a network error, a
   * timeout, and (creates only) a 409 `idempotency_key_in_use`; any other answer is final. Reads
   * and creates alike, each request of its own (each page of a walk too). Default 30 000
   * (`DEFAULT_RETRY_BUDGET_MS`): longer than a database failover. No attempt starts after it: a
   * backoff is cut to what remains, and a `Retry-After` longer than what remains ends the call at
   * once. The attempt under way keeps its `timeoutMs`, so a call ends within about
   * `retryBudgetMs + timeoutMs`. A create that ends without a known outcome throws
   * `outcome_unknown` with its `idempotencyKey`. 0 retries nothing. A whole number up to
   * 2 147 483 647.
   */
  readonly retryBudgetMs?: number;
  /**
   * The most retries after the first attempt, a safety bound within `retryBudgetMs` (a service
   * answering at once with `Retry-After: 0` is asked at most this many more times). Default 100
   * (`DEFAULT_RETRIES`), more than the default budget uses at a service's `Retry-After: 1`.
   * 0 turns retrying off.
   */
  readonly retries?: number;
  /**
   * Milliseconds each attempt may take, from sending the request to the last byte of the
   * answer's body. Default 10 000 (`DEFAULT_TIMEOUT_MS`). An attempt cut at its time counts
   * as a network failure: retried like one (a create with the same `Idempotency-Key`), then
   * thrown as a `PetStoreError` with status 0 and code `timeout` (a create: `outcome_unknown`).
   * A whole number from 1 to 2 147 483 647 (what `setTimeout` takes). To bound a call with its
   * retries more tightly than `retryBudgetMs`, pass a `signal`.
   */
  readonly timeoutMs?: number;
  /**
   * The most bytes of one answer's body the client reads; past it the read stops and the call
   * throws `response_too_large` (not retried). Default 8 MiB (`DEFAULT_MAX_RESPONSE_BYTES`).
   */
  readonly maxBodyBytes?: number;
  /**
   * The most pages one `pets()` or `orders()` walk fetches; past it the walk throws
   * `too_many_pages`. Default 10 000 (`DEFAULT_MAX_PAGES`): a million pets at 100 a page.
   */
  readonly maxPages?: number;
  /**
   * The client's retry token bucket, so that its retries cannot multiply an overload (the AWS
   * SDKs' standard retry mode): each retry takes `retryCost` tokens (default 10;
   * `timeoutRetryCost`, 20, after a timeout), each 2xx answer gives `successRefund` (1) back, up
   * to `capacity` (1000, which it starts with). A failure is retried only while the bucket holds
   * the retry's cost; otherwise the call ends as at its budget's end (a create that may have
   * been stored: `outcome_unknown`). So a lone failure is retried as before; in an outage where
   * nothing succeeds a client retries 100 times in all, then no more until answers succeed
   * again; and in any sustained overload its retries add at most a tenth to its requests. One
   * bucket per client, shared by all its calls (`DEFAULT_RETRY_TOKENS`). `false` turns it off.
   */
  readonly retryTokens?: RetryTokensOptions | false;
  /** A fetch to use instead of the global one (a proxy agent, a test double, a polyfill). */
  readonly fetch?: typeof globalThis.fetch;
  /** Called before each wait between attempts. */
  readonly onRetry?: (event: RetryEvent) => void;
}

/** Per call, on every method. */
export interface CallOptions {
  /**
   * Cancels the call: its request is aborted, a wait between attempts ends, and no further
   * attempt is made. The call rejects with `signal.reason` (an `AbortError` `DOMException`
   * unless you gave another), as `fetch` does, never with a `PetStoreError`.
   */
  readonly signal?: AbortSignal | undefined;
}

export interface CreatePetOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key` on every attempt. Default: a random UUID per call, which an
   * `outcome_unknown` error carries. Pass your own to make a create safe across process
   * restarts too (the service remembers it for 24 h), and to retry one you cancelled.
   */
  readonly idempotencyKey?: string;
}

/** Filters for walking every page: `limit` is the page size, not a total. */
export type PetsQuery = Omit<ListPetsQuery, 'cursor'>;
export type OrdersQuery = Omit<ListOrdersQuery, 'cursor'>;

export interface PetStoreClient {
  /**
   * `POST /pets`. Always sends an `Idempotency-Key` (random unless given), so retrying after
   * a 503, a network error or a 409 `idempotency_key_in_use` never creates a second pet. When
   * it gives up without knowing whether the pet was stored, it throws `outcome_unknown`
   * carrying that key, to retry with later.
   */
  createPet(newPet: NewPet, options?: CreatePetOptions): Promise<Pet>;
  /** `GET /pets`: one page, ascending by id, and the cursor of the next. */
  listPets(query?: ListPetsQuery, options?: CallOptions): Promise<Page<Pet>>;
  /**
   * Every pet matching `query`, page after page, following `Link: rel="next"`. An aborted
   * `signal` ends the walk at the next pet.
   */
  pets(query?: PetsQuery, options?: CallOptions): AsyncIterableIterator<Pet>;
  /**
   * `GET /pets/{petId}`.
   * @deprecated The service removes this operation on 5 December 2030 (its `Sunset` header).
   * Use `listPets` or `pets` with a `status` filter instead.
   */
  getPet(petId: number, options?: CallOptions): Promise<Pet>;
  /** `GET /store/orders`: one page of orders and the cursor of the next. */
  listOrders(query?: ListOrdersQuery, options?: CallOptions): Promise<Page<Order>>;
  /** Every order, page after page, following `Link: rel="next"`. */
  orders(query?: OrdersQuery, options?: CallOptions): AsyncIterableIterator<Order>;
}

/** A time budget, not a count: a promotion takes 6-10 s, a hung primary 17-25 s. */
export const DEFAULT_RETRY_BUDGET_MS = 30_000;
export const DEFAULT_RETRIES = 100;
export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_PAGES = 10_000;
export { DEFAULT_MAX_RESPONSE_BYTES };

/** The longest delay `setTimeout` takes; a longer one fires at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

interface Call {
  readonly operation: Operation;
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly body?: string;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal | undefined;
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
      /** It may have reached the service with no answer saying what became of it. */
      readonly open: boolean;
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

const positive = (name: string, value: number, max = Number.MAX_SAFE_INTEGER): number => {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new TypeError(`${name} must be a whole number from 1 to ${max}, got ${value}`);
  }
  return value;
};

/**
 * `baseUrl` without its trailing slashes. Where the key goes is decided by it, so it must be an
 * absolute http(s) URL with nothing a path can be appended to wrongly (a query, a fragment) and
 * no credentials; the message does not echo it (it may hold a password).
 */
function checkedBase(baseUrl: string | URL): string {
  const base = String(baseUrl).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new TypeError('baseUrl must be an absolute http: or https: URL');
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search !== '' || url.hash !== '') {
    throw new TypeError('baseUrl must be an http: or https: URL without a query or a fragment');
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError('baseUrl must not carry credentials (the API key goes in apiKey)');
  }
  return base;
}

/** A client for one service and one API key. Uses only `fetch`: Node 22+ and browsers alike. */
export function createPetStoreClient(options: PetStoreClientOptions): PetStoreClient {
  const base = checkedBase(options.baseUrl);
  const maxBodyBytes = positive('maxBodyBytes', options.maxBodyBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
  const maxPages = positive('maxPages', options.maxPages ?? DEFAULT_MAX_PAGES);
  const retries = options.retries ?? DEFAULT_RETRIES;
  if (!Number.isInteger(retries) || retries < 0) {
    throw new TypeError(`retries must be a whole number of at least 0, got ${retries}`);
  }
  const timeoutMs = positive('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const retryBudgetMs = options.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS;
  if (!Number.isInteger(retryBudgetMs) || retryBudgetMs < 0 || retryBudgetMs > MAX_TIMEOUT_MS) {
    throw new TypeError(
      `retryBudgetMs must be a whole number from 0 to ${MAX_TIMEOUT_MS}, got ${retryBudgetMs}`,
    );
  }
  const tokens = createRetryTokens(options.retryTokens);
  // The global is looked up per call and never detached: browsers reject a fetch called
  // with another `this`.
  const fetchOnce = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers = (call: Call): Record<string, string> => ({
    accept: 'application/json',
    authorization: `Bearer ${options.apiKey}`,
    ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(call.idempotencyKey === undefined ? {} : { 'idempotency-key': call.idempotencyKey }),
  });

  /**
   * The answer with its whole body (none for a redirect); throws when none came, whole, within
   * `signal`'s time.
   */
  const receive = async (call: Call, signal: AbortSignal) => {
    const init: RequestInit = {
      method: call.method,
      headers: headers(call),
      signal,
      // Never followed, whatever fetch this is: a redirect would carry the key, and a create's
      // body and Idempotency-Key, to wherever its Location points. `attempt` refuses it.
      redirect: 'manual',
      ...(call.body === undefined ? {} : { body: call.body }),
    };
    const response = await untilAborted(fetchOnce(call.url, init), signal);
    if (isRedirect(response)) {
      // Nothing of it is used: free the connection without reading the body.
      response.body?.cancel().catch(() => undefined);
      return { response, text: '' };
    }
    return { response, text: await untilAborted(readCapped(response, maxBodyBytes), signal) };
  };

  /** One attempt: the parsed 2xx body, or the failure and whether it may be retried. */
  const attempt = async <T>(call: Call): Promise<Attempt<T>> => {
    const deadline = startDeadline(timeoutMs, call.signal);
    let response: Response;
    let text: string | undefined;
    try {
      ({ response, text } = await receive(call, deadline.signal));
    } catch (error) {
      // The caller's cancel is theirs to handle: never retried, never wrapped.
      if (call.signal?.aborted) throw call.signal.reason;
      // No (complete) answer: refused, reset, DNS, out of time... The request may or may not
      // have arrived, which is safe to retry for reads and for creates carrying an
      // Idempotency-Key.
      const code = deadline.timedOut() ? 'timeout' : 'network_error';
      const outer = error instanceof Error ? error.message : String(error);
      const inner = innermostMessage(error);
      // fetch's own message ("fetch failed") says little; its cause says what happened.
      const reason = inner === undefined || inner === outer ? outer : `${outer} (${inner})`;
      const what = `${call.method} ${call.url}`;
      const failure = new PetStoreError({
        status: 0,
        code,
        message:
          code === 'timeout'
            ? `No complete answer from ${what} within ${timeoutMs} ms`
            : `No answer from ${what}: ${reason}`,
        cause: error,
      });
      return { failure, retryAs: code, retryAfter: null, open: outcomeOpen(failure, error) };
    } finally {
      deadline.end();
    }
    if (isRedirect(response)) {
      // Final: following it, or asking again, could only send the key and the request on.
      const failure = redirectRefused(call.operation, call.url, response, base);
      return { failure, retryAs: undefined, retryAfter: null, open: false };
    }
    if (text === undefined) {
      const failure = new PetStoreError({
        status: response.status,
        code: 'response_too_large',
        message: `${call.operation}: the answer's body passed ${maxBodyBytes} bytes (maxBodyBytes); not read further`,
        requestId: response.headers.get('x-request-id') ?? undefined,
      });
      // Not retried; a 5xx this large (a proxy's page) leaves a create's outcome open all the same.
      return { failure, retryAs: undefined, retryAfter: null, open: outcomeOpen(failure) };
    }
    if (response.ok) {
      const body = bodyOfSuccess(call.operation, response, text);
      // Not the service's answer: asking again would only fetch the same page.
      if (body instanceof PetStoreError)
        return { failure: body, retryAs: undefined, retryAfter: null, open: false };
      return { answer: { value: body.value as T, response } };
    }
    const failure = errorFromAnswer(response, text);
    const retryAfter = response.headers.get('retry-after');
    const open = outcomeOpen(failure);
    if (response.status === 503) {
      return { failure, retryAs: 'service_unavailable', retryAfter, open };
    }
    if (failure.code === 'idempotency_key_in_use' && call.idempotencyKey !== undefined) {
      return { failure, retryAs: 'idempotency_key_in_use', retryAfter, open };
    }
    // 422 `idempotency_key_reused` and every other answer are final: a retry cannot help. (A
    // 502 or 504, or a proxy's error page, is final too, but leaves a create's outcome open.)
    return { failure, retryAs: undefined, retryAfter, open };
  };

  /**
   * One call with its retries, within `retryBudgetMs` of its start: the parsed 2xx body, or a
   * thrown PetStoreError (`outcome_unknown` for a create that may or may not have been stored).
   */
  const send = async <T>(call: Call): Promise<Answer<T>> => {
    call.signal?.throwIfAborted();
    const started = performance.now();
    // Whether an attempt so far may have reached the service with no answer saying what became
    // of it: a create that ends then, without a final answer, has no known outcome.
    let open = false;
    for (let retry = 1; ; retry++) {
      const result = await attempt<T>(call);
      if ('answer' in result) {
        tokens.succeeded();
        return result.answer;
      }
      const { failure, retryAs, retryAfter } = result;
      open ||= result.open;
      const giveUp = (why?: string): PetStoreError =>
        call.idempotencyKey !== undefined && open && (retryAs !== undefined || result.open)
          ? outcomeUnknown(
              call.operation,
              call.idempotencyKey,
              failure,
              retry,
              performance.now() - started,
              why,
            )
          : failure;
      if (retryAs === undefined || retry > retries) throw giveUp();
      const remainingMs = retryBudgetMs - (performance.now() - started);
      const fromHeader = retryAfterMs(retryAfter);
      // No attempt starts past the budget, and none earlier than the service asked.
      if (remainingMs <= 0 || (fromHeader !== undefined && fromHeader > remainingMs)) {
        throw giveUp();
      }
      // Taken before the wait, so that calls failing together cannot all count on one token.
      const cost = tokens.take(retryAs);
      if (cost === undefined) throw giveUp('retries throttled: too few retry tokens left');
      const waitMs = fromHeader ?? Math.min(backoffMs(retry), remainingMs);
      try {
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
        await sleep(waitMs, call.signal);
      } catch (reason) {
        // Cancelled (or onRetry threw) before the retry went out: it cost the service nothing.
        tokens.giveBack(cost);
        throw reason;
      }
    }
  };

  const page = async <T>(
    operation: Operation,
    url: string,
    signal: AbortSignal | undefined,
  ): Promise<Page<T> & { next?: URL }> => {
    const { value, response } = await send<T[]>({ operation, method: 'GET', url, signal });
    const next = nextPage(operation, response, url);
    return {
      items: value,
      nextCursor: next?.searchParams.get('cursor') ?? undefined,
      ...(next === undefined ? {} : { next }),
    };
  };

  async function* walk<T>(
    operation: Operation,
    first: string,
    signal: AbortSignal | undefined,
  ): AsyncIterableIterator<T> {
    // The key goes only to the operation's own path; a walk must advance and end.
    const guard = pagingGuard(operation, first, maxPages);
    let url: string | undefined = first;
    while (url !== undefined) {
      const current: Page<T> & { next?: URL } = await page<T>(operation, url, signal);
      for (const item of current.items) {
        // Stop at once, not at the end of a page already fetched.
        signal?.throwIfAborted();
        yield item;
      }
      url = guard(current.next, current.items.length);
    }
  }

  const petsUrl = (query: ListPetsQuery) =>
    withQuery(`${base}/pets`, { status: query.status, limit: query.limit, cursor: query.cursor });
  const ordersUrl = (query: ListOrdersQuery) =>
    withQuery(`${base}/store/orders`, { limit: query.limit, cursor: query.cursor });
  const strip = <T>({ items, nextCursor }: Page<T>): Page<T> => ({ items, nextCursor });

  return {
    async createPet(newPet, { idempotencyKey = globalThis.crypto.randomUUID(), signal } = {}) {
      const { value } = await send<Pet>({
        operation: 'createPet',
        method: 'POST',
        url: `${base}/pets`,
        body: JSON.stringify(newPet),
        idempotencyKey,
        signal,
      });
      return value;
    },
    listPets: async (query = {}, { signal } = {}) =>
      strip(await page<Pet>('listPets', petsUrl(query), signal)),
    pets: (query = {}, { signal } = {}) => walk<Pet>('listPets', petsUrl(query), signal),
    async getPet(petId, { signal } = {}) {
      const url = `${base}/pets/${encodeURIComponent(String(petId))}`;
      return (await send<Pet>({ operation: 'getPet', method: 'GET', url, signal })).value;
    },
    listOrders: async (query = {}, { signal } = {}) =>
      strip(await page<Order>('listOrders', ordersUrl(query), signal)),
    orders: (query = {}, { signal } = {}) => walk<Order>('listOrders', ordersUrl(query), signal),
  };
}
