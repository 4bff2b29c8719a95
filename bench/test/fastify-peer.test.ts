import {
  API_KEY,
  conformanceCases,
  type HostedStore,
  runConformance,
  SECOND_API_KEY,
  type StoreHost,
  sendHttp,
  storeForCase,
} from '@petstore/conformance';
import {
  type IdempotentCreateResult,
  type PetStorage,
  StorageUnavailableError,
} from '@petstore/core';
import { type FastifyPeer, startFastifyPeer } from '../src/peers/fastify-peer.js';
import type { PeerState } from '../src/peers/fastify-state.js';

/**
 * The whole conformance suite against the hand-written Fastify peer: it must
 * answer as the library does wherever the library is not configured otherwise.
 */

/** The port the suite seeds and checks through: the peer's own state, no HTTP. */
function storageOver(state: () => PeerState): PetStorage {
  return {
    createPet: async (input) => state().createPet(input),
    createPetIdempotent: async (input, claim): Promise<IdempotentCreateResult> => {
      const outcome = state().createPetOnce(claim, input, Date.now(), claim.retentionMs);
      if (outcome.kind === 'mismatch') return { kind: 'fingerprint_mismatch' };
      if (outcome.kind === 'full') {
        const retryAfterSeconds = outcome.retryAfterSeconds;
        throw new StorageUnavailableError('peer claims full', { retryAfterSeconds });
      }
      return outcome;
    },
    getPet: async (id) => state().getPet(id),
    listPets: async ({ status, afterId, limit }) => state().listPets(status, afterId, limit),
    createOrder: async (input) => state().createOrder(input),
    listOrders: async ({ afterId, limit }) => state().listOrders(afterId, limit),
    close: async () => {},
  };
}

const host: StoreHost = {
  async start({ caseName }): Promise<HostedStore> {
    let peer: FastifyPeer | undefined;
    const storage = storageOver(() => {
      if (peer === undefined) throw new Error('the peer has not started');
      return peer.state;
    });
    const testCase = conformanceCases.find((candidate) => candidate.name === caseName);
    // The document the library serves for this case (its `servers`, say): the peer ships it as is.
    const { openApiDocument } = storeForCase(testCase, storage).store;
    peer = await startFastifyPeer({
      apiKeys: [API_KEY, SECOND_API_KEY],
      openApiDocument: JSON.stringify(openApiDocument),
    });
    const origin = `http://127.0.0.1:${peer.port}`;
    return {
      origin,
      storage,
      events: { responses: [], deprecatedCalls: [], errors: [] },
      openApiDocument,
      send: (wire) => sendHttp(origin, wire),
      close: () => peer?.close() ?? Promise.resolve(),
    };
  },
};

const VERIFY = 'configures the library: verify(token); the peer takes a fixed list of keys';
const OUTAGE =
  'injects storage faults (wrapStorage); the peer keeps its own memory, which cannot fail';
const HOOKS = 'records the library hooks (recordHooks); a hand-written app has no such hooks';
const ABORT = 'configures verify(token) and records hooks to see the hang-up';

runConformance({
  name: 'hand-written Fastify peer over memory',
  host,
  knownDifferences: {
    'auth: a verify(token) function accepts its tokens': VERIFY,
    'auth: a verify(token) function rejects other tokens': VERIFY,
    'auth: a verify(token) that throws is 503 service_unavailable with Retry-After, before any route or input check':
      VERIFY,
    'auth: a verify(token) that rejects is 503 service_unavailable with Retry-After, before any route or input check':
      VERIFY,
    'auth: a verify(token) that never settles is 503 service_unavailable with Retry-After, before any route or input check':
      VERIFY,
    'keys: a principal id from verify(token) scopes Idempotency-Keys': VERIFY,
    'keys: an { id, key } entry scopes Idempotency-Keys by its id, and keys sharing an id share them':
      'configures the library: { id, key } entries; the peer scopes each key by itself',
    'auth: the OpenAPI route can be switched off (then it needs auth like any path)':
      'configures the library: exposeOpenApi; the peer always serves its document',
    'auth: the OpenAPI route switched off is 404 for a client with a key':
      'configures the library: exposeOpenApi; the peer always serves its document',
    'createPet: defaultStatus option changes the default':
      'configures the library: defaultStatus; the peer defaults to available',
    'createPet: maxBodyBytes option lowers the limit':
      'configures the library: maxBodyBytes; the peer has a fixed 16 KiB bodyLimit',
    'getPet: the deprecation date is an option':
      'configures the library: the deprecation date; the peer has the default one',
    'idempotency: a key is forgotten after the retention window':
      'configures the library: a 1 s retention; the peer keeps keys 24 hours',
    'errors: listPets while storage is unreachable is 503 with Retry-After': OUTAGE,
    'errors: createPet while storage is unreachable is 503 with Retry-After': OUTAGE,
    'errors: createPet with an Idempotency-Key while storage is unreachable is 503 with Retry-After':
      OUTAGE,
    'errors: getPet while storage is unreachable is 503 with Retry-After': OUTAGE,
    'errors: listOrders while storage is unreachable is 503 with Retry-After': OUTAGE,
    'errors: listPets when storage fails unexpectedly is 500 internal_error without internals':
      OUTAGE,
    'errors: createPet when storage fails unexpectedly is 500 internal_error without internals':
      OUTAGE,
    'errors: getPet when storage fails unexpectedly is 500 internal_error without internals':
      OUTAGE,
    'hooks: onResponse sees method, route template, status, duration and request id': HOOKS,
    'hooks: onDeprecatedCall is told of every getPet call, and of nothing else': HOOKS,
    'hooks: onError receives the unexpected error; the client sees only internal_error': HOOKS,
    'hooks: a throwing hook is reported to onError with its request': HOOKS,
    'aborts: a client that hangs up mid-body (chunked) gets no answer and is no error': ABORT,
    'aborts: a client that hangs up mid-body (Content-Length) gets no answer and is no error':
      ABORT,
  },
});
