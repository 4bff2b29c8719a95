import * as v from 'valibot';
import { type ApiError, apiError, type ErrorDetail } from '../http/errors.js';

/** The path of a problem with the body as a whole. */
const BODY_PATH = '(body)';
const BODY_NOT_OBJECT = 'the request body must be a JSON object';

/**
 * One 400 for any invalid input: `details` has one `{path, message}` per
 * problem, each message a sentence that starts with the field it is about,
 * and the summary lists them all. `where` says what was invalid: `pet`,
 * `query`, `path`, `header`.
 */
export function invalidInput(where: string, details: readonly ErrorDetail[]): ApiError {
  const summary = details.map((detail) => detail.message).join('; ');
  return apiError('invalid_request', `Invalid ${where}: ${summary}.`, { details });
}

/** A rule broken by one named value: `limit must be an integer from 1 to 100`. */
export const invalidValue = (where: string, name: string, rule: string): ApiError =>
  invalidInput(where, [{ path: name, message: `${name} ${rule}` }]);

type ObjectEntries = Readonly<Record<string, v.GenericSchema>>;
type ObjectSchema = v.GenericSchema & { readonly entries: ObjectEntries };

const isOptional = (schema: v.GenericSchema): boolean =>
  schema.type === 'optional' || schema.type === 'exact_optional' || schema.type === 'nullish';

/**
 * Our words for valibot's issues, one per field, in a stable order: the
 * schema's fields in their order, then unknown properties in body order.
 * valibot's own wording never gets through: a missing key's issue carries the
 * object's message (its path item has `origin: 'key'`), and a strict object
 * reports only its first unknown key, so both are worked out here from the
 * keys themselves; a value's issue carries one of the schema's `RULES`.
 */
function describe(
  entries: ObjectEntries,
  input: Readonly<Record<string, unknown>>,
  issues: readonly v.BaseIssue<unknown>[],
): ErrorDetail[] {
  const valueProblems = new Map<string, string>();
  for (const issue of issues) {
    const item = issue.path?.[0] as { origin?: unknown; key?: unknown } | undefined;
    if (item?.origin !== 'value' || typeof item.key !== 'string') continue;
    if (!valueProblems.has(item.key)) valueProblems.set(item.key, issue.message);
  }
  const details: ErrorDetail[] = [];
  for (const [field, schema] of Object.entries(entries)) {
    if (!Object.hasOwn(input, field)) {
      if (!isOptional(schema)) details.push({ path: field, message: `${field} is required` });
      continue;
    }
    const rule = valueProblems.get(field);
    if (rule !== undefined) details.push({ path: field, message: `${field} ${rule}` });
  }
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(entries, key)) details.push({ path: key, message: `${key} is not allowed` });
  }
  return details;
}

/**
 * Validates a JSON request body against an object schema, every problem
 * reported at once. `rounded` names top-level properties whose number literal
 * JSON.parse rounded: such a value counts as invalid for its field, never as
 * the number it was rounded to.
 */
export function validateBody<TSchema extends ObjectSchema>(
  schema: TSchema,
  value: unknown,
  subject: string,
  rounded: readonly string[] = [],
): { readonly ok: v.InferOutput<TSchema> } | ApiError {
  // Checked first: a strict object schema accepts an array.
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalidInput(subject, [{ path: BODY_PATH, message: BODY_NOT_OBJECT }]);
  }
  const input: Readonly<Record<string, unknown>> =
    rounded.length === 0
      ? (value as Record<string, unknown>)
      : { ...value, ...Object.fromEntries(rounded.map((key) => [key, Number.NaN])) };
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: result.output };
  const details = describe(schema.entries, input, result.issues);
  // Cannot happen with the schemas above; still, never an error without a reason.
  if (details.length === 0)
    details.push({ path: BODY_PATH, message: `the request body is not a valid ${subject}` });
  return invalidInput(subject, details);
}
