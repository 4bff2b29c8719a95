import type { HookEvents, HostedSetup, HostedStore, StoreHost } from '@petstore/conformance';
import { sendHttp } from '@petstore/conformance';
import {
  type DeprecatedCallEvent,
  type ErrorEvent,
  type PetStorage,
  type ResponseEvent,
  StorageUnavailableError,
} from '@petstore/core';
import type { StorageSpec, WireError } from './harness/app.js';
import type { RuntimeProcess } from './runtime.js';

/** A storage for one case: what the runtime opens, and how to clean up after it. */
export interface PreparedStorage {
  readonly spec: StorageSpec;
  dispose(): Promise<void>;
}

/** Prepares a fresh storage per case (memory needs nothing; PostgreSQL a migrated schema). */
export type PrepareStorage = () => Promise<PreparedStorage>;

export const memoryStorage: PrepareStorage = async () => ({
  spec: { kind: 'memory' },
  dispose: async () => undefined,
});

const revive = (error: WireError): Error =>
  error.name === 'StorageUnavailableError'
    ? new StorageUnavailableError(error.message, {
        ...(error.retryAfterSeconds === undefined
          ? {}
          : { retryAfterSeconds: error.retryAfterSeconds }),
      })
    : new (ERRORS[error.name] ?? Error)(error.message);

/** Error classes an error may have been made with in the runtime (others come back as Error). */
const ERRORS: Readonly<Record<string, ErrorConstructor>> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
};

async function control<T>(origin: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${origin}/__harness/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The runtime's storage, called from here: each method a call to the harness. */
function storageProxy(origin: string): PetStorage {
  const call =
    (method: keyof PetStorage) =>
    async (...args: unknown[]): Promise<never> => {
      const answer = await control<{ result?: unknown; error?: WireError }>(origin, 'storage', {
        method,
        args,
      });
      if (answer.error !== undefined) throw revive(answer.error);
      return (answer.result ?? undefined) as never;
    };
  return {
    createPet: call('createPet'),
    createPetIdempotent: call('createPetIdempotent'),
    getPet: call('getPet'),
    listPets: call('listPets'),
    createOrder: call('createOrder'),
    listOrders: call('listOrders'),
    close: call('close'),
  };
}

interface WireEvents {
  readonly responses: ResponseEvent[];
  readonly deprecatedCalls: Array<Omit<DeprecatedCallEvent, 'sunsetAt'> & { sunsetAt: string }>;
  readonly errors: Array<Omit<ErrorEvent, 'error'> & { error: WireError }>;
}

/** Replaces the contents of `target` with `values`: cases hold on to the arrays themselves. */
const refill = <T>(target: T[], values: readonly T[]) => target.splice(0, target.length, ...values);

/**
 * A StoreHost whose stores the runtime builds and serves, one case at a time: the suite's
 * client talks to it over a real socket; storage calls and hook events come over the
 * harness's control API, the events kept up to date while a case runs.
 */
export function runtimeStoreHost(runtime: RuntimeProcess, prepare: PrepareStorage): StoreHost {
  const { origin } = runtime;
  return {
    async start(setup: HostedSetup): Promise<HostedStore> {
      const storage = await prepare();
      const { openApiDocument } = await control<{ openApiDocument: Record<string, unknown> }>(
        origin,
        'setup',
        { ...setup, storage: storage.spec },
      );
      const events: HookEvents & {
        responses: ResponseEvent[];
        deprecatedCalls: DeprecatedCallEvent[];
        errors: ErrorEvent[];
      } = { responses: [], deprecatedCalls: [], errors: [] };
      const refresh = async () => {
        const recorded = await control<WireEvents>(origin, 'events');
        refill(events.responses, recorded.responses);
        refill(
          events.deprecatedCalls,
          recorded.deprecatedCalls.map((event) => ({
            ...event,
            sunsetAt: new Date(event.sunsetAt),
          })),
        );
        refill(
          events.errors,
          recorded.errors.map((event) => ({ ...event, error: revive(event.error) })),
        );
      };
      // Cases that wait for an event poll the arrays: keep them current meanwhile.
      const poller = setInterval(() => void refresh().catch(() => undefined), 25);
      return {
        origin,
        storage: storageProxy(origin),
        events,
        openApiDocument,
        async send(wire) {
          const answer = await sendHttp(origin, wire);
          await refresh();
          return answer;
        },
        async close() {
          clearInterval(poller);
          await control(origin, 'close', {});
          await storage.dispose();
        },
      };
    },
  };
}
