import {
  createPetStore,
  type DeprecatedCallEvent,
  type ErrorEvent,
  type PetStorage,
  type PetStore,
  type PetStoreHooks,
  type ResponseEvent,
} from '@petstore/core';
import { API_KEY, SECOND_API_KEY } from './helpers.js';
import type { ConformanceCase, HookEvents } from './types.js';

/** Fresh per case, so cases cannot see each other's events even when run concurrently. */
function recordHooks(): { events: HookEvents; hooks: PetStoreHooks } {
  const events = {
    responses: [] as ResponseEvent[],
    deprecatedCalls: [] as DeprecatedCallEvent[],
    errors: [] as ErrorEvent[],
  };
  return {
    events,
    hooks: {
      onResponse: (event) => events.responses.push(event),
      onDeprecatedCall: (event) => events.deprecatedCalls.push(event),
      onError: (event) => events.errors.push(event),
    },
  };
}

/**
 * The store a case runs against, over its fresh storage: the suite's two keys, the case's
 * options and storage wrapper, and hooks that record into `events` when the case asks.
 * Whoever hosts the store builds it with this (the runner, or a host in another runtime).
 */
export function storeForCase(
  testCase: ConformanceCase | undefined,
  fresh: PetStorage,
): { readonly store: PetStore; readonly events: HookEvents } {
  const storage = testCase?.wrapStorage?.(fresh) ?? fresh;
  const recorder = recordHooks();
  const hooks = testCase?.recordHooks
    ? { ...recorder.hooks, ...testCase.options?.hooks }
    : testCase?.options?.hooks;
  const store = createPetStore({
    apiKeys: [API_KEY, SECOND_API_KEY],
    // The suite's cases share one event loop with its own work (answers checked against the
    // document, cases run concurrently): a stall of the runner is no overload of the host under
    // test, so no case is shed unless it turns load shedding on itself.
    loadShedding: false,
    ...testCase?.options,
    hooks,
    storage,
  });
  return { store, events: recorder.events };
}
