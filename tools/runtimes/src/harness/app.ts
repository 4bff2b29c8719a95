/**
 * The harness a runtime (Bun, Deno, workerd) serves: the pet store through `@petstore/fetch`,
 * built for one conformance case at a time from the case's own options (bundled here with
 * the cases), and a control API under `/__harness` for the suite, which stays in Node: set
 * up a case, call its storage, read its hook events.
 */
import { conformanceCases, storeForCase } from '@petstore/conformance';
import { createPetStore, isStorageUnavailable, type PetStorage } from '@petstore/core';
import { petStoreFetch } from '@petstore/fetch';

/** Which storage a case runs over; the suite prepares it (a migrated schema) beforehand. */
export type StorageSpec =
  | { readonly kind: 'memory' }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string };

export interface Setup {
  readonly caseName?: string;
  /** For a plain store (no case): its keys, instead of the suite's. */
  readonly apiKeys?: readonly string[];
  readonly mountPath: string;
  readonly publicPath?: string;
  readonly storage: StorageSpec;
}

/** Opens a fresh storage of a kind this runtime has (workerd has memory only). */
export type OpenStorage = (spec: StorageSpec) => Promise<PetStorage>;

/** An error as it crosses to the suite: enough to throw the same kind again there. */
export interface WireError {
  readonly name: string;
  readonly message: string;
  readonly retryAfterSeconds?: number;
}

const wireError = (error: unknown): WireError =>
  isStorageUnavailable(error)
    ? { name: error.name, message: error.message, retryAfterSeconds: error.retryAfterSeconds }
    : error instanceof Error
      ? { name: error.name, message: error.message }
      : { name: 'Error', message: String(error) };

const json = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), {
    status,
    headers: { 'content-type': 'application/json' },
  });

interface Current {
  readonly storage: PetStorage;
  readonly events: ReturnType<typeof storeForCase>['events'] | undefined;
  readonly handle: (request: Request) => Promise<Response>;
}

type StorageMethod = keyof PetStorage;
const STORAGE_METHODS: ReadonlySet<string> = new Set<StorageMethod>([
  'createPet',
  'createPetIdempotent',
  'getPet',
  'listPets',
  'createOrder',
  'listOrders',
  'close',
]);

export function createHarness(openStorage: OpenStorage): (request: Request) => Promise<Response> {
  let current: Current | undefined;

  async function setUp(setup: Setup): Promise<Response> {
    await current?.storage.close();
    current = undefined;
    const testCase =
      setup.caseName === undefined
        ? undefined
        : conformanceCases.find((candidate) => candidate.name === setup.caseName);
    if (setup.caseName !== undefined && testCase === undefined) {
      return json({ error: `no case named ${setup.caseName}` }, 400);
    }
    const storage = await openStorage(setup.storage);
    const { store, events } =
      testCase === undefined && setup.apiKeys !== undefined
        ? { store: createPetStore({ storage, apiKeys: setup.apiKeys }), events: undefined }
        : storeForCase(testCase, storage);
    const handle = petStoreFetch(store, {
      mountPath: setup.mountPath,
      ...(setup.publicPath === undefined ? {} : { publicPath: setup.publicPath }),
    });
    current = { storage, events, handle };
    return json({ openApiDocument: store.openApiDocument });
  }

  async function callStorage(body: { method: string; args: unknown[] }): Promise<Response> {
    if (current === undefined || !STORAGE_METHODS.has(body.method)) {
      return json({ error: { name: 'Error', message: `cannot call ${body.method}` } });
    }
    const method = current.storage[body.method as StorageMethod] as (...args: unknown[]) => unknown;
    try {
      return json({ result: (await method.apply(current.storage, body.args)) ?? null });
    } catch (error) {
      return json({ error: wireError(error) });
    }
  }

  function events(): Response {
    const recorded = current?.events;
    return json({
      responses: recorded?.responses ?? [],
      deprecatedCalls: (recorded?.deprecatedCalls ?? []).map((event) => ({
        ...event,
        sunsetAt: event.sunsetAt.toISOString(),
      })),
      errors: (recorded?.errors ?? []).map((event) => ({
        ...event,
        error: wireError(event.error),
      })),
    });
  }

  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/__harness/setup') return setUp((await request.json()) as Setup);
    if (pathname === '/__harness/storage') {
      return callStorage((await request.json()) as { method: string; args: unknown[] });
    }
    if (pathname === '/__harness/events') return events();
    if (pathname === '/__harness/close') {
      await current?.storage.close();
      current = undefined;
      return json({ closed: true });
    }
    if (current === undefined) return json({ error: 'no case is set up' }, 503);
    return current.handle(request);
  };
}
