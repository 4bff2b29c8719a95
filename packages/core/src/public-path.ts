import { renamedOption } from './deprecated-options.js';
import type { PetStoreRequest } from './http.js';
import { parsePath } from './paths.js';

/**
 * The public path a request says it has (adapters set it from their mount), checked, or the
 * store's own. Adapters pass the same value request after request: each value is checked once.
 */
export function requestPublicPath(
  fallback: string,
): (request: PetStoreRequest) => string | TypeError {
  let last: { readonly raw: string; readonly parsed: string | TypeError } | undefined;
  return (request) => {
    const raw =
      request.publicPath ??
      (request.basePath === undefined
        ? undefined
        : renamedOption('PetStoreRequest', 'basePath', 'publicPath', request.basePath, undefined));
    if (raw === undefined) return fallback;
    if (last?.raw !== raw) last = { raw, parsed: parsePath(raw, 'publicPath') };
    return last.parsed;
  };
}
