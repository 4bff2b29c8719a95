import type { OperationSpec } from './operation-spec.js';

export interface Route {
  /** OpenAPI-style template, for hooks and logs: `/pets/{petId}`. */
  readonly template: string;
  /** Operations by method, exactly as sent (HTTP methods are case-sensitive). */
  readonly methods: ReadonlyMap<string, OperationSpec>;
  /** The `Allow` header for this path: its methods in table order. */
  readonly allow: string;
}

export type Match =
  | {
      readonly kind: 'operation';
      readonly route: Route;
      readonly operation: OperationSpec;
      /** Captured path segments, still percent-encoded. */
      readonly params: readonly string[];
    }
  | { readonly kind: 'method_not_allowed'; readonly route: Route; readonly allow: string }
  | { readonly kind: 'not_found' };

export type Router = (method: string, path: string) => Match;

const NOT_FOUND: Match = { kind: 'not_found' };

/** A fixed path's matches: one per method it serves, and the 405 for any other. */
interface FixedMatches {
  readonly byMethod: ReadonlyMap<string, Match>;
  readonly otherwise: Match;
}
const NO_PARAMS: readonly string[] = Object.freeze([]);

/** `/pets/{petId}` → /^\/pets\/([^/]+)$/: a parameter is one non-empty segment. */
function patternOf(template: string): RegExp {
  const source = template
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('([^/]+)');
  return new RegExp(`^${source}$`);
}

/**
 * Compiles the operation table into a matcher: fixed paths by one Map lookup,
 * templated ones by their patterns, in table order.
 */
export function compileRouter(operations: readonly OperationSpec[]): Router {
  const byTemplate = new Map<string, Map<string, OperationSpec>>();
  for (const operation of operations) {
    const methods = byTemplate.get(operation.path) ?? new Map<string, OperationSpec>();
    if (methods.has(operation.method)) {
      throw new Error(`two operations for ${operation.method} ${operation.path}`);
    }
    byTemplate.set(operation.path, methods.set(operation.method, operation));
  }
  const notAllowed = (route: Route): Match => ({
    kind: 'method_not_allowed',
    route,
    allow: route.allow,
  });
  const found = (route: Route, method: string, params: readonly string[]): Match => {
    const operation = route.methods.get(method);
    return operation === undefined
      ? notAllowed(route)
      : { kind: 'operation', route, operation, params };
  };
  // A fixed path's matches never change: made once, not per request.
  const fixed = new Map<string, FixedMatches>();
  const templated: { readonly pattern: RegExp; readonly route: Route }[] = [];
  for (const [template, methods] of byTemplate) {
    const route: Route = { template, methods, allow: [...methods.keys()].join(', ') };
    if (template.includes('{')) {
      templated.push({ pattern: patternOf(template), route });
      continue;
    }
    const byMethod = new Map<string, Match>();
    for (const method of methods.keys()) byMethod.set(method, found(route, method, NO_PARAMS));
    fixed.set(template, { byMethod, otherwise: notAllowed(route) });
  }

  return (method, path) => {
    const atFixed = fixed.get(path);
    if (atFixed !== undefined) return atFixed.byMethod.get(method) ?? atFixed.otherwise;
    for (const { pattern, route } of templated) {
      const captured = pattern.exec(path);
      if (captured !== null) return found(route, method, captured.slice(1));
    }
    return NOT_FOUND;
  };
}
