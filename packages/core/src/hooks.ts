import type { PetStoreHooks } from './options.js';

/** Where a hook was called from, so a throwing hook is reported with its request. */
export interface HookSite {
  readonly method: string;
  readonly route: string | undefined;
  readonly requestId: string;
}

/** A hook must never break an answer; a throwing hook is reported to onError. */
export function callHook<TEvent>(
  hooks: PetStoreHooks,
  hook: ((event: TEvent) => void) | undefined,
  event: TEvent,
  site: HookSite,
): void {
  if (hook === undefined) return;
  try {
    hook(event);
  } catch (error) {
    if (hook !== hooks.onError) callHook(hooks, hooks.onError, { error, ...site }, site);
  }
}
