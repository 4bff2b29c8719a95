import * as v from 'valibot';
import { type ApiError, apiError, type ErrorDetail } from './errors.js';

type Issue = v.BaseIssue<unknown>;

const pathOf = (issue: Issue): string =>
  (issue.path ?? []).map((item) => String((item as { key: unknown }).key)).join('.') || '(body)';

/** A message a client can act on, whatever valibot's default wording. */
function messageOf(issue: Issue): string {
  const last = issue.path?.at(-1) as { origin?: string } | undefined;
  if (last?.origin === 'key') return 'is not an allowed property';
  if (
    issue.received === 'undefined' &&
    (issue.type === 'strict_object' || issue.type === 'object')
  ) {
    return 'is required';
  }
  return issue.message;
}

export function validationError(subject: string, issues: readonly Issue[]): ApiError {
  const details: ErrorDetail[] = issues.map((issue) => ({
    path: pathOf(issue),
    message: messageOf(issue),
  }));
  const summary = details.map((detail) => `${detail.path} ${detail.message}`).join('; ');
  return apiError('invalid_request', `Invalid ${subject}: ${summary}.`, { details });
}

/** Parses with every issue reported at once (not only the first). */
export function validate<TSchema extends v.GenericSchema>(
  schema: TSchema,
  value: unknown,
  subject: string,
): { readonly ok: v.InferOutput<TSchema> } | ApiError {
  const result = v.safeParse(schema, value);
  return result.success ? { ok: result.output } : validationError(subject, result.issues);
}
