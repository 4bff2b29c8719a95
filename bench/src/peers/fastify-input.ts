import { isUtf8 } from 'node:buffer';
import type { FastifyBodyParser, FastifyError, FastifySchemaValidationError } from 'fastify';
import {
  type Detail,
  type ErrorAnswer,
  internalError,
  invalidInput,
  MAX_ID,
  malformed,
  PeerError,
  problem,
  RULES,
  tooLarge,
  unsupportedMedia,
} from './fastify-errors.js';
import { CURSOR_PATTERN, LIMIT_PATTERN } from './fastify-schemas.js';
import { PET_STATUSES } from './fastify-state.js';

/** Query values as sent: names decoded, values not (`limit=%31` is not `limit=1`); repeats as arrays. */
export type RawQuery = Readonly<Record<string, string | readonly string[]>>;

const decodeName = (name: string): string => {
  if (!name.includes('%') && !name.includes('+')) return name;
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
};

/** Fastify's `querystringParser`: the contract judges `limit`, `status` and `cursor` undecoded. */
export function parseRawQuery(text: string): RawQuery {
  // No prototype: a `__proto__` parameter is a name like any other.
  const query: Record<string, string | string[]> = Object.create(null);
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeName(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : pair.slice(eq + 1);
    const sent = query[name];
    query[name] =
      sent === undefined ? value : [...(typeof sent === 'string' ? [sent] : sent), value];
  }
  return query;
}

/** Opaque to clients: the base64url of the last id's digits, the same cursor the library issues. */
export const encodeCursor = (lastId: number): string =>
  Buffer.from(String(lastId), 'latin1').toString('base64url');

const CURSOR_TEXT = new RegExp(CURSOR_PATTERN);
const ID_TEXT = /^[1-9]\d{0,15}$/;

/** The last id a cursor stands for, or undefined when this service did not issue it. */
export function decodeCursor(cursor: string): number | undefined {
  if (!CURSOR_TEXT.test(cursor)) return undefined;
  const digits = Buffer.from(cursor, 'base64url').toString('latin1');
  if (!ID_TEXT.test(digits)) return undefined;
  const id = Number(digits);
  // Only the canonical spelling: one position, one cursor.
  return id <= MAX_ID && encodeCursor(id) === cursor ? id : undefined;
}

type QueryName = 'limit' | 'status' | 'cursor';
const QUERY_NAMES: readonly QueryName[] = ['limit', 'status', 'cursor'];
const LIMIT_TEXT = new RegExp(LIMIT_PATTERN);
const STATUSES: ReadonlySet<string> = new Set(PET_STATUSES);
const IS_VALID: Readonly<Record<QueryName, (text: string) => boolean>> = {
  limit: (text) => LIMIT_TEXT.test(text),
  status: (text) => STATUSES.has(text),
  cursor: (text) => decodeCursor(text) !== undefined,
};

/** What is wrong with a query value as sent, or undefined when nothing is. */
function queryProblem(name: QueryName, sent: string | readonly string[] | undefined) {
  if (sent === undefined) return undefined;
  if (typeof sent !== 'string') return RULES.once;
  if (sent.includes('%')) return RULES.plain;
  return IS_VALID[name](sent) ? undefined : RULES[name];
}

/** Every problem with the named query values, in the order the contract lists them. */
function queryProblems(query: RawQuery, names: ReadonlySet<string>): Detail[] {
  const details: Detail[] = [];
  for (const name of QUERY_NAMES) {
    const rule = names.has(name) ? queryProblem(name, query[name]) : undefined;
    if (rule !== undefined) details.push(problem(name, rule));
  }
  return details;
}

/** `1.5`, `1e3` or 16 digits in a row: only such literals can have been rounded. */
const MAY_ROUND = /\d[.eE]|\d{16}/;
const LITERAL = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Whether a JSON number literal is exactly the integer `value`: compared as digits, never as BigInt. */
function isExactLiteral(literal: string, value: number): boolean {
  const parts = LITERAL.exec(literal);
  if (parts === null) return true;
  const [, whole = '', fraction = '', exponent = '0'] = parts;
  const digits = whole + fraction;
  let first = 0;
  while (digits.charCodeAt(first) === 0x30) first++;
  if (first === digits.length) return value === 0;
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 0x30) end--;
  // The literal is digits[first, end) then `zeros` zeros; fewer than none leaves a fraction.
  const zeros = Number(exponent) - fraction.length + (digits.length - end);
  const expected = String(Math.abs(value));
  return (
    zeros >= 0 &&
    end - first + zeros === expected.length &&
    expected === digits.slice(first, end) + '0'.repeat(zeros)
  );
}

/** JSON.parse's reviver with the literal's source text (V8's JSON.parse source text access). */
type SourceReviver = (
  key: string,
  value: unknown,
  context: { readonly source?: string },
) => unknown;
const parseWithSource = JSON.parse as (text: string, reviver: SourceReviver) => unknown;

/** A safe integer JSON.parse rounded onto becomes NaN, which no schema accepts: refused, never rounded. */
const exactNumbers: SourceReviver = (_key, value, { source }) =>
  typeof value === 'number' &&
  Number.isSafeInteger(value) &&
  source !== undefined &&
  !isExactLiteral(source, value)
    ? Number.NaN
    : value;

/** The JSON body parser; Fastify has read the bytes within `bodyLimit`. Strict UTF-8, exact numbers. */
export const parseJsonBody: FastifyBodyParser<Buffer> = (_request, bytes, done) => {
  if (!isUtf8(bytes)) {
    done(new PeerError(malformed('The request body is not valid UTF-8.')), undefined);
    return;
  }
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = MAY_ROUND.test(text) ? parseWithSource(text, exactNumbers) : JSON.parse(text);
  } catch (error) {
    const message =
      text.trim() === ''
        ? 'The request body is empty; send a JSON object.'
        : `The request body is not valid JSON: ${error instanceof Error ? error.message : error}`;
    done(new PeerError(malformed(message)), undefined);
    return;
  }
  done(null, value);
};

const PET_FIELDS = ['name', 'categoryId', 'status'] as const;

/** A NewPet field's rule, from ajv's errors about it; undefined when it has none. */
function fieldRule(
  field: (typeof PET_FIELDS)[number],
  errors: readonly FastifySchemaValidationError[],
): string | undefined {
  const own = errors.filter(
    (error) =>
      error.instancePath === `/${field}` ||
      (error.keyword === 'required' && error.params.missingProperty === field),
  );
  if (own.length === 0) return undefined;
  if (own.some((error) => error.keyword === 'required')) return 'is required';
  if (field === 'status') return RULES.status;
  if (field === 'categoryId') return RULES.id;
  // Only the pattern failed (a NUL or a lone surrogate): the text, not the type or length.
  return own.every((error) => error.keyword === 'pattern') ? RULES.nameText : RULES.name;
}

/** ajv's errors about a NewPet in our words: fields in schema order, then unknown ones as sent. */
function petProblems(body: unknown, errors: readonly FastifySchemaValidationError[]): Detail[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return [{ path: '(body)', message: 'the request body must be a JSON object' }];
  }
  const details: Detail[] = [];
  for (const field of PET_FIELDS) {
    const rule = fieldRule(field, errors);
    if (rule !== undefined) details.push(problem(field, rule));
  }
  for (const error of errors) {
    if (error.keyword !== 'additionalProperties') continue;
    details.push(problem(String(error.params.additionalProperty), 'is not allowed'));
  }
  return details;
}

/** What a request sent, for wording what ajv refused in it. */
export interface Sent {
  readonly body: unknown;
  readonly query: RawQuery;
}

/** A Fastify validation error as the contract's 400. */
function invalid(error: FastifyError, sent: Sent): ErrorAnswer {
  const errors = error.validation ?? [];
  switch (error.validationContext) {
    case 'body':
      return invalidInput('pet', petProblems(sent.body, errors));
    case 'querystring': {
      // ajv checks a cursor's alphabet; whether we issued it is judged here too.
      const names = new Set(['cursor', ...errors.map((e) => e.instancePath.slice(1))]);
      return invalidInput('query', queryProblems(sent.query, names));
    }
    case 'params':
      return invalidInput('path', [problem('petId', RULES.id)]);
    default:
      return invalidInput('header', [problem('Idempotency-Key', RULES.idempotencyKey)]);
  }
}

/** What the error handler answers: ours as they are, Fastify's own in the contract's words. */
export function answerFor(error: FastifyError, sent: Sent, maxBytes: number): ErrorAnswer {
  if (error instanceof PeerError) return error.answer;
  if (error.validation !== undefined) return invalid(error, sent);
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(maxBytes);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMedia();
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return malformed('The request body does not have the length its Content-Length says.');
  }
  // Anything else is a bug of ours: the client learns nothing about it.
  return internalError;
}
