import type { PetStorage } from '@petstore/core';
import type { HookEvents } from './conformance/types.js';
import type { ConformanceTarget } from './wire.js';

/** What a hosted store is built from: a case, where it is mounted, where clients see it. */
export interface HostedSetup {
  /**
   * The conformance case whose store to build (its options, hooks and storage wrapper, by
   * name, as `storeForCase` builds them), or undefined for a plain store with the suite's key.
   */
  readonly caseName?: string | undefined;
  readonly mountPath: string;
  readonly publicPath?: string | undefined;
}

/** A store a host built and serves, reached over a socket. */
export interface HostedStore extends ConformanceTarget {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The case's fresh storage, before any wrapper: calls go to the host. */
  readonly storage: PetStorage;
  /** The hook events the host recorded, kept up to date while the case runs. */
  readonly events: HookEvents;
  readonly openApiDocument: Readonly<Record<string, unknown>>;
}

/**
 * A host that builds each store itself, in another process or runtime (Bun, Deno, workerd):
 * the suite stays here, its client talks to the host over a real socket.
 */
export interface StoreHost {
  start(setup: HostedSetup): Promise<HostedStore>;
}
