import * as v from 'valibot';
import { type ApiError, apiError, type ErrorDetail, MAX_ERROR_DETAILS } from '../http/errors.js';

/** The path of a problem with the body as a whole. */
const BODY_PATH = '(body)';
const BODY_NOT_OBJECT = 'the request body must be a JSON object';

/**
 * One 400 for any invalid input: `details` has one `{path, message}` per
 * problem, each message a sentence that starts with the field it is about,
 * and the summary lists them. `where` says what was invalid: `pet`, `query`,
 * `path`, `header`. At most `MAX_ERROR_DETAILS` are named; when `total` is more,
 * the message says how many there were in all.
 */
export function invalidInput(
  where: string,
  details: readonly ErrorDetail[],
  total = details.length,
): ApiError {
  const named = details.length > MAX_ERROR_DETAILS ? details.slice(0, MAX_ERROR_DETAILS) : details;
  const summary = named.map((detail) => detail.message).join('; ');
  const message =
    total > named.length
      ? `Invalid ${where}: ${total} problems, the first ${named.length}: ${summary}.`
      : `Invalid ${where}: ${summary}.`;
  return apiError('invalid_request', message, { details: named });
}

/** A rule broken by one named value: `limit must be an integer from 1 to 100`. */
export const invalidValue = (where: string, name: string, rule: string): ApiError =>
  invalidInput(where, [{ path: name, message: `${name} ${rule}` }]);

type ObjectEntries = Readonly<Record<string, v.GenericSchema>>;
type ObjectSchema = v.GenericSchema & { readonly entries: ObjectEntries };

const isOptional = (schema: v.GenericSchema): boolean =>
  schema.type === 'optional' || schema.type === 'exact_optional' || schema.type === 'nullish';

/**
 * Our words for valibot's issues, in a stable order: the schema's fields in
 * their order, then unknown properties in body order, `MAX_ERROR_DETAILS` at most,
 * with how many problems there were in all. valibot's own wording never gets
 * through: a missing key's issue carries the object's message, so it is worked
 * out here from the keys themselves; a value's issue carries one of the
 * schema's `RULES`. Unknown keys are counted, not each described: past the
 * cap, naming stops.
 */
function describe(
  entries: ObjectEntries,
  input: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  unknown: number,
  issues: readonly v.BaseIssue<unknown>[],
): { readonly details: ErrorDetail[]; readonly total: number } {
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
  const total = details.length + unknown;
  for (let index = 0; index < keys.length && details.length < MAX_ERROR_DETAILS; index++) {
    const key = keys[index] as string;
    if (!Object.hasOwn(entries, key)) details.push({ path: key, message: `${key} is not allowed` });
  }
  return { details, total };
}

/**
 * Validates a JSON request body against an object schema, every problem
 * counted, the first `MAX_ERROR_DETAILS` named. `rounded` names top-level properties
 * whose number literal JSON.parse rounded: such a value counts as invalid for
 * its field, never as the number it was rounded to.
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
  const body = value as Readonly<Record<string, unknown>>;
  // Only the schema's own fields go to valibot: a body of thousands of unknown keys costs their
  // count (one array of names JSON.parse already made), not a copy of the body and an issue each.
  const input: Record<string, unknown> = {};
  let known = 0;
  for (const field of Object.keys(schema.entries)) {
    if (!Object.hasOwn(body, field)) continue;
    input[field] = rounded.includes(field) ? Number.NaN : body[field];
    known++;
  }
  const keys = Object.keys(body);
  const unknown = keys.length - known;
  const result = v.safeParse(schema, input);
  if (result.success && unknown === 0) return { ok: result.output };
  const { details, total } = describe(
    schema.entries,
    input,
    keys,
    unknown,
    result.success ? [] : result.issues,
  );
  // Cannot happen with the schemas above; still, never an error without a reason.
  if (details.length === 0)
    details.push({ path: BODY_PATH, message: `the request body is not a valid ${subject}` });
  return invalidInput(subject, details, Math.max(total, details.length));
}
