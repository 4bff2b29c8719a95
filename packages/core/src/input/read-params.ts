import type { ErrorDetail } from '../http/errors.js';
import type { AnyParameter } from './params.js';
import type { RawQuery } from './query.js';

const PARAMETER_RULES = {
  once: 'must be given at most once',
  plain: 'must be sent as plain text, not percent-encoded',
} as const;

/** Parameter values by name, or every problem found with them (query, then path). */
export type ReadParams =
  | { readonly ok: true; readonly values: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly where: 'query' | 'path'; readonly details: ErrorDetail[] };

const problem = (name: string, rule: string): ErrorDetail => ({
  path: name,
  message: `${name} ${rule}`,
});

/** A query value: exactly one, sent as plain text, and by the parameter's rule. */
function queryValue(parameter: AnyParameter, query: RawQuery): { value: unknown } | ErrorDetail {
  const sent = query.getAll(parameter.name);
  if (sent.length === 0) return { value: parameter.absent };
  // A repeated parameter is ambiguous; an escape is another spelling of a value that needs none.
  if (sent.length > 1) return problem(parameter.name, PARAMETER_RULES.once);
  const text = sent[0] as string;
  if (text.includes('%')) return problem(parameter.name, PARAMETER_RULES.plain);
  const value = parameter.parse(text);
  return value === undefined ? problem(parameter.name, parameter.rule) : { value };
}

/**
 * Reads an operation's parameters, as its row in the operation table lists them:
 * query values from the raw query, path values from the router's captures (in order).
 */
export function readParams(
  parameters: readonly AnyParameter[],
  query: RawQuery,
  captures: readonly string[],
): ReadParams {
  const values: Record<string, unknown> = {};
  const queryProblems: ErrorDetail[] = [];
  const pathProblems: ErrorDetail[] = [];
  let captured = 0;
  for (const parameter of parameters) {
    if (parameter.in === 'path') {
      const value = parameter.parse(captures[captured++] ?? '');
      if (value === undefined) pathProblems.push(problem(parameter.name, parameter.rule));
      else values[parameter.name] = value;
      continue;
    }
    const read = queryValue(parameter, query);
    if ('value' in read) values[parameter.name] = read.value;
    else queryProblems.push(read);
  }
  if (pathProblems.length > 0) return { ok: false, where: 'path', details: pathProblems };
  if (queryProblems.length > 0) return { ok: false, where: 'query', details: queryProblems };
  return { ok: true, values };
}
