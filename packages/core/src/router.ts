import type { Handler, RequestContext } from './handlers/context.js';

export interface Operation {
  readonly operationId: string;
  readonly handler: Handler;
  /** Headers every answer of this operation carries, errors included (deprecation). */
  readonly headers?: (
    context: Pick<RequestContext, 'options' | 'basePath'>,
  ) => Record<string, string>;
  /** Answered without authentication. */
  readonly public?: boolean;
  /** Calls are reported to the onDeprecatedCall hook. */
  readonly deprecated?: boolean;
}

export interface Route {
  /** OpenAPI-style template, for hooks and logs: `/pets/{petId}`. */
  readonly template: string;
  readonly pattern: RegExp;
  readonly methods: Readonly<Record<string, Operation>>;
}

export type Match =
  | {
      readonly kind: 'operation';
      readonly route: Route;
      readonly operation: Operation;
      readonly params: string[];
    }
  | { readonly kind: 'method_not_allowed'; readonly route: Route; readonly allow: string }
  | { readonly kind: 'not_found' };

/** Finds the route for a path below the base path; methods are case-sensitive, as HTTP says. */
export function matchRoute(routes: readonly Route[], method: string, path: string): Match {
  for (const route of routes) {
    const found = route.pattern.exec(path);
    if (found === null) continue;
    const operation = route.methods[method];
    if (operation === undefined || !Object.hasOwn(route.methods, method)) {
      return { kind: 'method_not_allowed', route, allow: Object.keys(route.methods).join(', ') };
    }
    return { kind: 'operation', route, operation, params: found.slice(1) };
  }
  return { kind: 'not_found' };
}
