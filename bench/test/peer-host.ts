/**
 * Test code only: hosts the hand-written peers (src/peers) for the conformance suite of
 * @petstore/conformance, one fresh store per case. The suite seeds and checks through a
 * `PetStorage` facade over the peer's own store; the OpenAPI document the peer serves (and
 * the suite checks answers by) is the library's, built for the case's options.
 */

import {
  API_KEY,
  type ConformanceCase,
  conformanceCases,
  type HookEvents,
  type HostedStore,
  SECOND_API_KEY,
  type StoreHost,
  sendHttp,
  storeForCase,
} from '@petstore/conformance';
import { type IdempotentCreateResult, isStorageUnavailable, type PetStorage } from '@petstore/core';
import type pg from 'pg';
import {
  createMemoryStore,
  createPgSchema,
  createPgStore,
  type KeyedOutcome,
  type PeerOptions,
  type PeerStore,
  StoreUnavailableError,
  startNodePeer,
} from '../src/peers/index.js';

/** A fresh store for one case, and what to do once the case is over. */
export interface FreshStore {
  readonly store: PeerStore;
  dispose(): Promise<void>;
}

export type OpenStore = (retentionMs: number | undefined) => Promise<FreshStore>;

export const memoryStores: OpenStore = async (retentionMs) => ({
  store: createMemoryStore({ retentionMs }),
  dispose: async () => undefined,
});

/** A new schema per case on the test server, dropped afterwards. */
export const pgStores =
  (admin: pg.Pool, newSchema: () => string): OpenStore =>
  async (retentionMs) => {
    const schema = newSchema();
    await createPgSchema(admin, schema);
    const store = createPgStore({ pool: admin, schema, retentionMs, purgeIntervalMs: 0 });
    return {
      store,
      dispose: async () => {
        await store.close();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      },
    };
  };

const RESULT_OF: Record<KeyedOutcome['kind'], IdempotentCreateResult['kind']> = {
  created: 'created',
  replayed: 'replayed',
  mismatch: 'fingerprint_mismatch',
  in_flight: 'in_flight',
};

/** The port the suite seeds and checks through, over the peer's store. */
export function storageOver(store: PeerStore): PetStorage {
  return {
    createPet: async (input) => store.createPet(input),
    createPetIdempotent: async (input, { scope, key, fingerprint }) => {
      const outcome = await store.createPetKeyed(input, { scope, key, fingerprint });
      return 'pet' in outcome
        ? { kind: RESULT_OF[outcome.kind] as 'created' | 'replayed', pet: outcome.pet }
        : { kind: RESULT_OF[outcome.kind] as 'fingerprint_mismatch' | 'in_flight' };
    },
    getPet: async (id) => store.getPet(id),
    listPets: async ({ afterId = 0, limit, status }) => [
      ...(await store.listPets(afterId, limit, status)),
    ],
    createOrder: async (input) => store.createOrder(input),
    listOrders: async ({ afterId = 0, limit }) => [...(await store.listOrders(afterId, limit))],
    close: async () => undefined,
  };
}

/** A storage's outage as the peer's own (503); anything else stays a bug (500). */
const asPeerError = (error: unknown): unknown =>
  isStorageUnavailable(error)
    ? new StoreUnavailableError(error.message, error.retryAfterSeconds, { cause: error })
    : error;

/**
 * The peer's store over a `PetStorage`: for cases that wrap the storage to make it fail
 * (`wrapStorage`), so the peer meets the same failures at its store as the library does.
 */
export function storeOver(storage: PetStorage): PeerStore {
  const call = <T>(promise: Promise<T>): Promise<T> =>
    promise.catch((error: unknown) => Promise.reject(asPeerError(error)));
  return {
    listPets: (afterId, limit, status) => call(storage.listPets({ afterId, limit, status })),
    createPet: (pet) => call(storage.createPet(pet)),
    createPetKeyed: async (pet, claim) => {
      // The facade below keeps the store's own retention; the port asks for one all the same.
      const claimed = { ...claim, retentionMs: 24 * 60 * 60 * 1000 };
      const result = await call(storage.createPetIdempotent(pet, claimed));
      if (result.kind === 'fingerprint_mismatch') return { kind: 'mismatch' };
      return result;
    },
    getPet: (id) => call(storage.getPet(id)),
    listOrders: (afterId, limit) => call(storage.listOrders({ afterId, limit })),
    createOrder: (order) => call(storage.createOrder(order)),
    close: () => storage.close(),
  };
}

/** Options of a case the peers take, as theirs; any other option is one the peers do not have. */
interface PeerConfig {
  readonly options: PeerOptions;
  readonly retentionMs: number | undefined;
}

function peerConfig(testCase: ConformanceCase | undefined, document: string): PeerConfig {
  if (testCase?.recordHooks === true) throw new Error('the peers have no hooks');
  const {
    apiKeys,
    exposeOpenApi,
    defaultStatus,
    maxBodyBytes,
    deprecation,
    idempotency,
    servers: _servers, // only in the document, which is built from the case's options
    loadShedding,
    ...rest
  } = testCase?.options ?? {};
  const unsupported = [
    ...Object.entries(rest).filter(([, value]) => value !== undefined),
    ...Object.entries(deprecation ?? {}).filter(([name]) => name !== 'deprecatedAt'),
    ...Object.entries(idempotency ?? {}).filter(([name]) => name !== 'retentionMs'),
    // The peers never shed load: off is what they do, on is an option they do not have.
    ...Object.entries({ loadShedding }).filter(
      ([, value]) => value !== undefined && value !== false,
    ),
  ].map(([name]) => name);
  if (unsupported.length > 0) throw new Error(`the peers have no option ${unsupported.join(', ')}`);
  if (testCase?.options !== undefined && 'apiKeys' in testCase.options && apiKeys === undefined) {
    throw new Error('the peers need apiKeys');
  }
  return {
    options: {
      apiKeys: apiKeys ?? [API_KEY, SECOND_API_KEY],
      openApiDocument: exposeOpenApi === false ? undefined : document,
      maxBodyBytes,
      defaultStatus,
      deprecatedAt: deprecation?.deprecatedAt,
    },
    retentionMs: idempotency?.retentionMs,
  };
}

const NO_EVENTS: HookEvents = { responses: [], deprecatedCalls: [], errors: [] };

/**
 * A StoreHost serving each case with a hand-written peer on a real socket. A case that
 * configures what the peers do not have (hooks, `verify`...) fails at its start: such
 * cases are the suite's known differences, by name.
 */
export function peerHost(open: OpenStore): StoreHost {
  return {
    async start({ caseName, mountPath }): Promise<HostedStore> {
      if (mountPath !== '/v1') throw new Error(`the peers are mounted at /v1, not ${mountPath}`);
      const testCase = conformanceCases.find((candidate) => candidate.name === caseName);
      if (caseName !== undefined && testCase === undefined) throw new Error(`no case ${caseName}`);
      const probe = storeForCase(testCase, storageOver(createMemoryStore()));
      const openApiDocument = probe.store.openApiDocument;
      const { options, retentionMs } = peerConfig(testCase, JSON.stringify(openApiDocument));
      const fresh = await open(retentionMs);
      const storage = storageOver(fresh.store);
      const wrapped = testCase?.wrapStorage?.(storage);
      try {
        const peer = await startNodePeer(
          wrapped === undefined ? fresh.store : storeOver(wrapped),
          options,
        );
        const origin = `http://127.0.0.1:${peer.port}`;
        return {
          origin,
          storage,
          events: NO_EVENTS,
          openApiDocument,
          send: (wire) => sendHttp(origin, wire),
          async close() {
            await peer.close();
            await fresh.dispose();
          },
        };
      } catch (error) {
        await fresh.dispose();
        throw error;
      }
    },
  };
}
